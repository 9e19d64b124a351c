import { ResponseBodyError, processRefreshTokenResponse, refreshTokenGrantRequest } from 'oauth4webapi';

import type { BffContext } from './bff-context';
import type { BffSession } from './bff-session';
import { describeProviderError } from './describe-provider-error';
import { retryOnDpopNonce } from './retry-on-dpop-nonce';
import { type SessionTokens, sessionTokens } from './session-tokens';

/** What a refresh grant came to; see {@link refreshGrant}. */
export type RefreshGrantResult =
  /** New tokens. */
  | { readonly kind: 'refreshed'; readonly tokens: SessionTokens }
  /** The provider refused the refresh token (`invalid_grant`): the sign-in is over. */
  | { readonly kind: 'refused'; readonly reason: string }
  /** No usable answer (down, slow, an error page, a malformed answer): nothing is known to have changed. */
  | { readonly kind: 'unavailable'; readonly reason: string };

/**
 * One refresh grant (RFC 6749, section 6) for `session`, with a DPoP proof of the session's key when
 * it has one (and a second try when the provider asks for a nonce), all within `refreshTimeout`.
 * Never rejects: the caller decides what each outcome does to the session.
 *
 * Only `invalid_grant` ends a session. Any other failure keeps it: an `invalid_client` is a setup
 * mistake that no sign-in would fix, and a provider that is down may be back at the next request.
 */
export async function refreshGrant(context: BffContext, session: BffSession): Promise<RefreshGrantResult> {
  const refreshToken = session.refreshToken;
  if (refreshToken === null) return { kind: 'refused', reason: 'the session has no refresh token' };
  try {
    const server = await context.authorizationServer();
    const dpop = await context.dpopHandles.of(session);
    const signal = AbortSignal.timeout(context.options.refreshTimeout);
    const response = await retryOnDpopNonce(async () =>
      processRefreshTokenResponse(
        server,
        context.client,
        await refreshTokenGrantRequest(server, context.client, context.clientAuth, refreshToken, {
          ...context.requestOptions(context.options.issuer, signal),
          DPoP: dpop,
        }),
      ),
    );
    return { kind: 'refreshed', tokens: sessionTokens(response, Date.now(), session.absoluteTimeout, session) };
  } catch (error) {
    const reason = `the refresh grant ${describeProviderError(error)}`;
    return error instanceof ResponseBodyError && error.error === 'invalid_grant'
      ? { kind: 'refused', reason }
      : { kind: 'unavailable', reason };
  }
}
