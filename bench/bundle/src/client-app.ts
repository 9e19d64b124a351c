import { ChangeDetectionStrategy, Component, inject, signal } from '@angular/core';
import { AuthClient, UsersService } from 'ngx-token-refresh/client';

/** The service-client variants' app: signs in with AuthClient, then lists users with UsersService. */
@Component({
  selector: 'app-root',
  template: `{{ auth.isAuthenticated() ? 'signed in' : 'signed out' }}: {{ status() }}`,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ClientApp {
  protected readonly auth = inject(AuthClient);
  protected readonly status = signal('loading');
  private readonly users = inject(UsersService);

  constructor() {
    this.auth.login({ username: 'ada', password: 'lovelace' }).subscribe({
      next: () =>
        this.users.list({ page: 1, pageSize: 20 }).subscribe({
          next: (page) => this.status.set(`${page.pagination.totalItems} users`),
          error: (error: { message: string }) => this.status.set(error.message),
        }),
      error: (error: { message: string }) => this.status.set(error.message),
    });
  }
}
