import { JsonPipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { MatCardModule } from '@angular/material/card';

import { LabDPoP } from '../lab/lab-dpop';

/**
 * The auth lab's DPoP card (the `real-dpop` build only): the proof of the last call, decoded, so the
 * per-request signature can be watched: a new `jti` each call, `htm` and `htu` of that call, `ath`
 * (the token's hash) on API calls, the server's `nonce` once it gave one, and the same public key
 * in every tab and after a reload.
 */
@Component({
  selector: 'app-lab-dpop-card',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [JsonPipe, MatCardModule],
  template: `
    <mat-card appearance="outlined">
      <mat-card-header><mat-card-title>DPoP</mat-card-title></mat-card-header>
      <mat-card-content>
        <p class="muted">
          Every call is signed with this browser's key (P-256, not extractable, kept in IndexedDB): a copied token is
          useless without it.
        </p>
        @if (dpop.last(); as proof) {
          <p>
            Last signed call: <strong data-testid="dpop-call">{{ proof.call }}</strong>, Authorization:
            <strong data-testid="dpop-scheme">{{ proof.scheme }}</strong>
          </p>
          <p class="label">Proof header</p>
          <pre data-testid="dpop-header">{{ proof.header | json }}</pre>
          <p class="label">Proof claims</p>
          <pre data-testid="dpop-claims">{{ proof.claims | json }}</pre>
        } @else {
          <p data-testid="dpop-none">No signed call yet in this tab.</p>
        }
      </mat-card-content>
    </mat-card>
  `,
  styles: `
    :host {
      display: block;
      /* The whole row of the lab's grid: a proof is long lines of JSON. */
      grid-column: 1 / -1;
    }
    mat-card {
      height: 100%;
    }
    pre {
      margin: 0 0 0.5rem;
      font-size: 0.8rem;
      white-space: pre-wrap;
      /* A key coordinate or a jti is one long word, wider than the card on a 360 px screen. */
      overflow-wrap: anywhere;
    }
    .label {
      margin: 0.5rem 0 0.25rem;
      font-weight: 500;
    }
  `,
})
export class LabDPoPCard {
  protected readonly dpop = inject(LabDPoP);
}
