import { JsonPipe } from '@angular/common';
import { HttpClient } from '@angular/common/http';
import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { takeUntilDestroyed, toObservable } from '@angular/core/rxjs-interop';
import { OAuthSession } from 'ngx-token-refresh/oauth';
import { EMPTY, switchMap, timer } from 'rxjs';

import { AUTHORIZATION_SERVER } from './authorization-server';
import { OidcSignIn } from './oidc-sign-in';
import { RefreshActivity } from './refresh-activity';

/**
 * Signed out: a sign-in button. Signed in: calls to the provider's userinfo endpoint, the protected
 * resource here, through HttpClient, so the interceptor adds the access token and refreshes it.
 */
@Component({
  selector: 'app-home-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [JsonPipe],
  template: `
    @if (signedIn()) {
      <p data-testid="status">Signed in</p>
      <p class="actions">
        <button type="button" data-testid="call" (click)="call()">Call userinfo</button>
        <label>
          <input type="checkbox" data-testid="steady" [checked]="steady()" (change)="steady.set(!steady())" />
          every second
        </label>
        <button type="button" data-testid="sign-out" (click)="signOut()">Sign out</button>
      </p>
      <table>
        <tr>
          <th scope="row">Calls</th>
          <td data-testid="calls">{{ calls() }}</td>
        </tr>
        <tr>
          <th scope="row">Answered</th>
          <td data-testid="answered">{{ answered() }}</td>
        </tr>
        <tr>
          <th scope="row">Failed</th>
          <td data-testid="failed">{{ failed() }}</td>
        </tr>
        <tr>
          <th scope="row">Repeated after a 401</th>
          <td data-testid="repeated">{{ activity.repeated() }}</td>
        </tr>
        <tr>
          <th scope="row">Refreshes by this tab</th>
          <td data-testid="refreshes">{{ activity.refreshes() }}</td>
        </tr>
        <tr>
          <th scope="row">… of them ahead of expiry</th>
          <td data-testid="ahead">{{ activity.ahead() }}</td>
        </tr>
        <tr>
          <th scope="row">Tokens from other tabs</th>
          <td data-testid="received">{{ activity.received() }}</td>
        </tr>
      </table>
      @if (userinfo(); as claims) {
        <pre data-testid="userinfo">{{ claims | json }}</pre>
      }
    } @else {
      <p data-testid="status">Signed out</p>
      @if (activity.endedBecause(); as reason) {
        <p data-testid="ended">
          @if (reason.error === 'signed_out_elsewhere') {
            You signed out in another tab.
          } @else {
            The provider ended the session ({{ reason.error }}).
          }
        </p>
      }
      <button type="button" data-testid="sign-in" (click)="signIn.start()">Sign in</button>
    }
  `,
  styles: `
    .actions {
      display: flex;
      gap: 1rem;
      align-items: center;
    }
    th {
      padding-right: 1rem;
      font-weight: normal;
      text-align: left;
    }
  `,
})
export class HomePage {
  protected readonly signIn = inject(OidcSignIn);
  protected readonly activity = inject(RefreshActivity);
  readonly #session = inject(OAuthSession);
  readonly #http = inject(HttpClient);
  readonly #userinfoEndpoint = inject(AUTHORIZATION_SERVER).userinfo_endpoint ?? '';

  protected readonly signedIn = computed(() => this.#session.accessToken() !== null);
  /** Call userinfo every second, as an app with steady traffic. */
  protected readonly steady = signal(false);
  protected readonly calls = signal(0);
  protected readonly answered = signal(0);
  protected readonly failed = signal(0);
  protected readonly userinfo = signal<unknown>(null);

  constructor() {
    toObservable(this.steady)
      .pipe(
        switchMap((steady) => (steady ? timer(0, 1000) : EMPTY)),
        takeUntilDestroyed(),
      )
      .subscribe(() => {
        if (this.signedIn()) this.call();
      });
  }

  protected call(): void {
    this.calls.update((count) => count + 1);
    this.#http.get(this.#userinfoEndpoint).subscribe({
      next: (claims) => {
        this.answered.update((count) => count + 1);
        this.userinfo.set(claims);
      },
      error: () => this.failed.update((count) => count + 1),
    });
  }

  protected async signOut(): Promise<void> {
    this.steady.set(false);
    await this.#session.signOut();
  }
}
