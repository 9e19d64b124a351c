import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { MatButtonModule } from '@angular/material/button';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { MatToolbarModule } from '@angular/material/toolbar';
import { Router, RouterLink, RouterLinkActive, RouterOutlet } from '@angular/router';
import { AuthClient, injectTokenRefresh, parseJwtClaims } from 'ngx-token-refresh';

/** The showcase's frame: navigation, who is signed in, sign-out, and a bar while a refresh runs. */
@Component({
  selector: 'app-root',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButtonModule, MatProgressBarModule, MatToolbarModule, RouterLink, RouterLinkActive, RouterOutlet],
  template: `
    <mat-toolbar>
      <span class="brand">ngx-token-refresh</span>
      @if (auth.isAuthenticated()) {
        <nav>
          <a mat-button routerLink="/lab" routerLinkActive="active" ariaCurrentWhenActive="page">Auth lab</a>
          <a mat-button routerLink="/users" routerLinkActive="active" ariaCurrentWhenActive="page">Users</a>
        </nav>
        <span class="spacer"></span>
        <span class="who" data-testid="signed-in-as">{{ username() }}</span>
        <button mat-stroked-button (click)="logout()" data-testid="logout">Sign out</button>
      }
    </mat-toolbar>
    @if (refreshing()) {
      <mat-progress-bar mode="indeterminate" aria-label="Refreshing the access token" />
    }
    <router-outlet />
  `,
  styles: `
    mat-toolbar {
      gap: 1rem;
      background: var(--mat-sys-surface-container);
    }
    .brand {
      font-weight: 600;
    }
    .spacer {
      flex: 1;
    }
    .who {
      font-size: 0.875rem;
    }
    .active {
      background: var(--mat-sys-secondary-container);
    }
    mat-progress-bar {
      position: absolute;
    }
  `,
})
export class App {
  protected readonly auth = inject(AuthClient);
  private readonly router = inject(Router);
  protected readonly refreshing = injectTokenRefresh().isRefreshing;
  protected readonly username = computed(() => {
    const sub = parseJwtClaims(this.auth.accessToken())?.sub;
    return typeof sub === 'string' ? `Signed in as ${sub}` : '';
  });

  protected logout(): void {
    this.auth.logout();
    void this.router.navigate(['/login']);
  }
}
