import { ChangeDetectionStrategy, Component, DOCUMENT, inject, signal } from '@angular/core';
import { Router, RouterLink } from '@angular/router';
import { OAuthSession } from 'ngx-token-refresh/oauth';

import { OidcSignIn } from './oidc-sign-in';

/**
 * Where the provider sends the browser back (`redirect_uri`): the code is exchanged for tokens, and
 * the token response goes to the library, which refreshes from then on.
 */
@Component({
  selector: 'app-callback-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterLink],
  template: `
    @if (problem(); as problem) {
      <p data-testid="sign-in-problem">Sign-in failed: {{ problem }}</p>
      <a routerLink="/">Back</a>
    } @else {
      <p>Signing in…</p>
    }
  `,
})
export class CallbackPage {
  protected readonly problem = signal<string | null>(null);

  constructor() {
    const session = inject(OAuthSession);
    const router = inject(Router);
    inject(OidcSignIn)
      .complete(new URL(inject(DOCUMENT).location.href))
      .then(
        (tokens) => {
          session.setTokens(tokens);
          // replaceUrl: the code, used once, leaves the history.
          return router.navigateByUrl('/', { replaceUrl: true });
        },
        (error: unknown) => this.problem.set(error instanceof Error ? error.message : String(error)),
      );
  }
}
