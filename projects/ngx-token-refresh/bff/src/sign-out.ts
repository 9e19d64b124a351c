import type { BffContext } from './bff-context';
import type { BffSession } from './bff-session';
import { checkCsrf } from './check-csrf';
import { json } from './json-error';
import { readSession } from './read-session';
import { revokeTokens } from './revoke-tokens';
import { clearedSessionCookie } from './session-cookie';
import { unusableSession } from './unusable-session';

/**
 * `POST <basePath>/logout`: ends the session here and at the provider.
 *
 * The session is deleted inside the store's `change`, so a refresh under way (on any instance) ends
 * first and the refresh token revoked is the newest one. The revocation ends the grant, every token
 * of it included; the answer waits for it (within `refreshTimeout`), but the session is over here
 * whatever the provider says. The cookie is cleared, and the answer is `{ endSessionUrl }`: the
 * provider's end-session page (RP-initiated logout, with `id_token_hint`), where the browser goes to
 * end its session at the provider too; `null` when the provider has none.
 */
export async function signOut(context: BffContext, request: Request): Promise<Response> {
  const refused = checkCsrf(request, context.options.origin);
  if (refused !== null) return refused;
  const lookup = await readSession(context, request);
  if (lookup.kind !== 'session') return unusableSession(lookup);
  const key = lookup.session.key;
  const ended = await context.options.store.change<BffSession | null>(key, (current) => ({
    result: current,
    delete: true,
  }));
  context.dpopHandles.forget(key);
  if (ended === null) return unusableSession({ kind: 'ended' });
  await revokeTokens(context, ended);
  return json(200, { endSessionUrl: await endSessionUrl(context, ended) }, { 'set-cookie': clearedSessionCookie() });
}

/** The provider's end-session URL for `session` (OpenID Connect RP-Initiated Logout 1.0), or `null`. */
async function endSessionUrl(context: BffContext, session: BffSession): Promise<string | null> {
  let endpoint: string | undefined;
  try {
    endpoint = (await context.authorizationServer()).end_session_endpoint;
  } catch {
    return null;
  }
  if (endpoint === undefined) return null;
  const url = new URL(endpoint);
  const { clientId, postLogoutRedirectUri } = context.options;
  url.searchParams.set('client_id', clientId);
  if (session.idToken !== null) url.searchParams.set('id_token_hint', session.idToken);
  if (postLogoutRedirectUri !== null) url.searchParams.set('post_logout_redirect_uri', postLogoutRedirectUri);
  return url.href;
}
