import { ChangeDetectionStrategy, Component, DOCUMENT, computed, inject, resource } from '@angular/core';
import { MatExpansionModule } from '@angular/material/expansion';

import { loadAppConfigSource } from '../app-config-source';
import { wiringLines } from '../lab/wiring-lines';

/**
 * The auth lab's "How this page is wired" panel: the library's import and the providers of this
 * app's app.config.ts, from the copy of the file the build ships (so the panel cannot drift from the
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
        The providers of this app's <code>app.config.ts</code>, from the copy of the file the build ships. Lines in bold
        use <code>ngx-token-refresh</code>; the others are Angular's, or the demo's (latency, the in-memory backend,
        this lab's log).
      </p>
      @if (lines(); as lines) {
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
      } @else if (source.error()) {
        <p class="error-text" data-testid="wiring-error">Could not load app.config.ts: {{ source.error()?.message }}</p>
      } @else {
        <p class="muted">Loading app.config.ts…</p>
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
  private readonly baseUri = inject(DOCUMENT).baseURI;
  protected readonly source = resource({ loader: () => loadAppConfigSource(this.baseUri) });
  protected readonly lines = computed(() => (this.source.hasValue() ? wiringLines(this.source.value()) : null));
}
