import { ChangeDetectionStrategy, Component } from '@angular/core';
import { MatExpansionModule } from '@angular/material/expansion';

import { appConfigSource } from '../app-config-source';
import { wiringLines } from '../lab/wiring-lines';

/**
 * The auth lab's "How this page is wired" panel: the library's import and the providers of this
 * app's app.config.ts, as the build read them from the file (so the panel cannot drift from the
 * code), with the library's lines marked.
 */
@Component({
  selector: 'app-lab-wiring-panel',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatExpansionModule],
  template: `
    <mat-expansion-panel data-testid="wiring-panel">
      <mat-expansion-panel-header>
        <mat-panel-title>How this page is wired</mat-panel-title>
      </mat-expansion-panel-header>
      <p>
        The providers of this app's <code>app.config.ts</code>, read from the file when the app was built. Lines in bold
        use <code>ngx-token-refresh</code>; the others are Angular's, or the demo's (latency, the in-memory backend,
        this lab's log).
      </p>
      @if (lines.length) {
        <pre
          tabindex="0"
          aria-label="Providers of app.config.ts"
          data-testid="wiring-source"
        ><code>@for (line of lines; track $index) {<span [class.library]="line.library">{{ line.text }}</span>
}</code></pre>
      } @else {
        <p class="error-text">app.config.ts has no providers array this panel can read.</p>
      }
    </mat-expansion-panel>
  `,
  styles: `
    :host {
      display: block;
      margin-top: 1.5rem;
    }
    pre {
      overflow-x: auto;
      margin: 0;
      padding: 0.75rem;
      border-radius: 0.5rem;
      background: var(--mat-sys-surface-container);
      font-size: 0.8125rem;
      line-height: 1.5;
    }
    span {
      color: var(--mat-sys-on-surface-variant);
    }
    .library {
      color: var(--mat-sys-on-surface);
      font-weight: 700;
    }
  `,
})
export class LabWiringPanel {
  protected readonly lines = wiringLines(appConfigSource);
}
