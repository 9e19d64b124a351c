import { ChangeDetectionStrategy, Component } from '@angular/core';
import { injectTokenRefresh } from 'ngx-token-refresh';

/** Root component of the showcase. */
@Component({
  selector: 'app-root',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <main>
      <h1>ngx-token-refresh</h1>
      <p>One refresh for any number of concurrent 401s.</p>
      <p data-testid="refresh-status">Refresh in flight: {{ refreshing() ? 'yes' : 'no' }}</p>
    </main>
  `,
  styles: `
    main {
      max-width: 48rem;
      margin: 2rem auto;
      padding: 0 1rem;
    }
  `,
})
export class App {
  protected readonly refreshing = injectTokenRefresh().isRefreshing;
}
