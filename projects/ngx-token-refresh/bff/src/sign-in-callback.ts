import {
  AuthorizationResponseError,
  DPoP,
  type DPoPHandle,
  type IDToken,
  ResponseBodyError,
  type TokenEndpointResponse,
  authorizationCodeGrantRequest,
  getValidatedIdTokenClaims,
  processAuthorizationCodeResponse,
  validateAuthResponse,
} from 'oauth4webapi';

import type { BffContext } from './bff-context';
import type { BffSession } from './bff-session';
import { createSessionId } from './create-session-id';
import { describeProviderError } from './describe-provider-error';
import { type DpopKeyJwks, createDpopKey } from './dpop-key';
import { type LoginAttempt, clearedLoginCookie, readLoginAttempt } from './login-cookie';
import { retryOnDpopNonce } from './retry-on-dpop-nonce';
import { sessionCookie } from './session-cookie';
import { sessionKey } from './session-key';
import { sessionTokens } from './session-tokens';
import { signInFailure } from './sign-in-failure';
import { signInReturnUrl } from './sign-in-return-url';

/**
 * `GET <basePath>/callback`: the end of a sign-in. Checks the provider's answer against this
 * browser's login cookie (`state`, and `iss` where the provider sends it), exchanges the code (PKCE;
 * with a new DPoP key when the BFF binds tokens), checks the ID token (`nonce` included), stores a
 * new session under a new id, and sets the session cookie.
 *
 * It answers 200 with a page that moves on to `returnUrl` by itself (`<meta http-equiv="refresh">`),
 * not with a redirect: this request came from the provider's site, and browsers hold a `SameSite=Strict`
 * cookie back from every request of a redirect chain that a cross-site navigation started. After a
 * page, the next navigation starts on this site, and the first render of `returnUrl` is signed in.
 * The page sends no `Referer` (the callback's URL holds the code) and runs nothing (`default-src 'none'`).
 *
 * A failed callback goes back to the app instead, with `bffError` in the query (see `signInFailure`):
 * a person who pressed Cancel at the provider, or whose sign-in went stale, lands on the app's page,
 * not on an error body.
 */
export async function signInCallback(context: BffContext, request: Request): Promise<Response> {
  const attempt = readLoginAttempt(request);
  // No sign-in is under way in this browser (its login cookie is missing, expired or not ours): a
  // stale or replayed callback URL, or a code planted by another site. Nothing says where to go back.
  if (attempt === null) return signInFailure('/', 'InvalidRequest');
  let tokens: TokenEndpointResponse;
  let dpop: { readonly handle: DPoPHandle; readonly jwks: DpopKeyJwks } | null = null;
  try {
    const server = await context.authorizationServer();
    let parameters: URLSearchParams;
    try {
      parameters = validateAuthResponse(server, context.client, new URL(request.url), attempt.state);
    } catch (error) {
      // The provider's own error (the user cancelled: access_denied) comes after state and iss match:
      // an answer of another sign-in never gets its error code passed on.
      return error instanceof AuthorizationResponseError
        ? signInFailure(attempt.returnUrl, 'SignInFailed', error.error)
        : signInFailure(attempt.returnUrl, 'InvalidRequest');
    }
    if (context.usesDpop(server)) {
      const { keyPair, jwks } = await createDpopKey();
      dpop = { handle: DPoP(context.client, keyPair), jwks };
    }
    tokens = await exchangeCode(context, attempt, parameters, dpop?.handle);
  } catch (error) {
    const reason = describeProviderError(error);
    // A code spent or expired (invalid_grant) is the user's to retry; any other refusal (invalid_client,
    // unauthorized_client) is a setup mistake that fails every sign-in, which someone must hear of.
    if (!(error instanceof ResponseBodyError) || error.error !== 'invalid_grant') {
      context.options.onWarning(`a sign-in failed: the provider ${reason}`);
    }
    return signInFailure(
      attempt.returnUrl,
      error instanceof ResponseBodyError ? 'SignInFailed' : 'ProviderUnavailable',
    );
  }

  const { options } = context;
  if (tokens.refresh_token === undefined) {
    context.warnOnce(
      'no-refresh-token',
      'the provider issued no refresh token at sign-in: sessions end when their access token expires. Ask for the offline_access scope (and, at oidc-provider among others, authorizationParams { prompt: "consent" }), or allow refresh tokens for this client at the provider',
    );
  }
  const claims = getValidatedIdTokenClaims(tokens) as IDToken;
  const now = Date.now();
  const sessionId = createSessionId();
  const key = await sessionKey(sessionId);
  const sessionFields = sessionTokens(tokens, now, options.absoluteTimeout, null);
  const session: BffSession = {
    key,
    version: 1,
    subject: claims.sub,
    claims: Object.fromEntries(options.userClaims.filter((name) => name in claims).map((name) => [name, claims[name]])),
    ...sessionFields,
    // A provider that ignored the proof issued a Bearer token: nothing to sign for.
    dpopKey: dpop !== null && sessionFields.tokenType === 'DPoP' ? dpop.jwks : null,
    createdAt: now,
    lastSeenAt: now,
    idleTimeout: options.idleTimeout,
    absoluteTimeout: options.absoluteTimeout,
  };
  await options.store.create(session);
  if (session.dpopKey !== null && dpop !== null) context.dpopHandles.add(key, dpop.handle);

  const headers = new Headers({
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'content-security-policy': "default-src 'none'",
  });
  headers.append('set-cookie', sessionCookie(sessionId, options.absoluteTimeout));
  headers.append('set-cookie', clearedLoginCookie());
  // Signed in now: an earlier failure's bffError in returnUrl would say otherwise.
  const target = escapeHtml(signInReturnUrl(attempt.returnUrl));
  return new Response(
    `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${target}"><title>Signed in</title></head><body><a href="${target}">Continue</a></body></html>`,
    { status: 200, headers },
  );
}

/** The code grant, with a second proof when the provider asks for a DPoP nonce. */
function exchangeCode(
  context: BffContext,
  attempt: LoginAttempt,
  parameters: URLSearchParams,
  dpop: DPoPHandle | undefined,
): Promise<TokenEndpointResponse> {
  const { client, clientAuth, options } = context;
  return retryOnDpopNonce(async () => {
    const server = await context.authorizationServer();
    const response = await authorizationCodeGrantRequest(
      server,
      client,
      clientAuth,
      parameters,
      options.redirectUri,
      attempt.codeVerifier,
      { ...context.requestOptions(options.issuer), DPoP: dpop },
    );
    return processAuthorizationCodeResponse(server, client, response, {
      expectedNonce: attempt.nonce,
      requireIdToken: true,
    });
  });
}

function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
}
