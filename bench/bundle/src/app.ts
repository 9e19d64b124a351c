import { HttpClient } from '@angular/common/http';
import { ChangeDetectionStrategy, Component, inject, signal } from '@angular/core';

/** The app every bundle variant bootstraps: one component that calls the API once. */
@Component({
  selector: 'app-root',
  template: '{{ status() }}',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class App {
  protected readonly status = signal('loading');

  constructor() {
    inject(HttpClient)
      .get<unknown[]>('/api/items')
      .subscribe({
        next: (items) => this.status.set(`${items.length} items`),
        error: () => this.status.set('error'),
      });
  }
}
