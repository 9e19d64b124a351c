import { ChangeDetectionStrategy, Component, signal } from '@angular/core';
import { MatButtonModule } from '@angular/material/button';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { MatToolbarModule } from '@angular/material/toolbar';
import { injectBffSession, parseApiError } from 'ngx-token-refresh/client';

import { BffPage } from './pages/bff-page';

/** The showcase's frame in its `bff` build: who is signed in, sign-in and sign-out, and the page. */
@Component({
  selector: 'app-root',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [BffPage, MatButtonModule, MatProgressBarModule, MatToolbarModule],
  template: `
    <mat-toolbar>
      <span class="brand">ngx-token-refresh</span>
      <span class="mode">backend for frontend</span>
      <span class="spacer"></span>
      @if (session.user(); as user) {
        <span class="who" data-testid="signed-in-as"><span class="who-prefix">Signed in as </span>{{ user.sub }}</span>
        <button mat-stroked-button (click)="signOut()" [disabled]="signingOut()" data-testid="sign-out">
          Sign out
        </button>
      } @else if (session.status() === 'signedOut') {
        <button mat-flat-button (click)="session.signIn()" data-testid="sign-in">Sign in</button>
      }
    </mat-toolbar>
    @if (session.status() === 'unknown' || signingOut()) {
      <mat-progress-bar mode="indeterminate" aria-label="Waiting for the server" />
    }
    @if (signOutError(); as message) {
      <p class="page error-text" role="alert" data-testid="sign-out-error">{{ message }}</p>
    }
    <app-bff-page />
  `,
  styles: `
    mat-toolbar {
      gap: 1rem;
      background: var(--mat-sys-surface-container);
    }
    .brand {
      font-weight: 600;
    }
    .mode {
      font-size: 0.875rem;
      color: var(--mat-sys-on-surface-variant);
    }
    .spacer {
      flex: 1;
    }
    .who {
      font-size: 0.875rem;
    }
    mat-progress-bar {
      position: absolute;
    }
    @media (max-width: 40rem) {
      .mode,
      .who-prefix {
        display: none;
      }
    }
  `,
})
export class BffApp {
  protected readonly session = injectBffSession();
  protected readonly signingOut = signal(false);
  protected readonly signOutError = signal<string | null>(null);

  /** Signs out here and at the provider, whose end-session page the browser then opens. */
  protected signOut(): void {
    this.signingOut.set(true);
    this.signOutError.set(null);
    this.session.signOut().then(
      () => this.signingOut.set(false),
      (error: unknown) => {
        this.signingOut.set(false);
        this.signOutError.set(`The server could not sign you out: ${parseApiError(error).message}`);
      },
    );
  }
}
