import { WWWAuthenticateChallengeError, protectedResourceRequest } from 'oauth4webapi';

import type { BffContext } from './bff-context';
import type { BffApi } from './bff-options';
import type { BffSession } from './bff-session';
import { checkCsrf } from './check-csrf';
import type { RefreshGate } from './create-refresh-gate';
import { jsonError } from './json-error';
import { needsRefresh } from './needs-refresh';
import { readBody } from './read-body';
import { readSession } from './read-session';
import { retryOnDpopNonce } from './retry-on-dpop-nonce';
import { unusableSession } from './unusable-session';

/** Headers of one connection, not of the message (RFC 9110, section 7.6.1): never passed on. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'proxy-connection'];

/**
 * Request headers that stay at the BFF: its own (`cookie`, `x-csrf`), the credentials it replaces
 * (`authorization`, `dpop`, `proxy-authorization`), those fetch sets for the new connection (`host`,
 * `content-length`), `origin` (the API is not called by the page), and `accept-encoding`: fetch asks
 * for the encodings it can decode itself, and hands the body over decoded.
 */
const DROPPED_REQUEST_HEADERS = new Set([
  ...HOP_BY_HOP,
  'cookie',
  'x-csrf',
  'authorization',
  'dpop',
  'proxy-authorization',
  'host',
  'content-length',
  'origin',
  'accept-encoding',
]);

/**
 * Response headers that stay at the BFF: cookies of the API (the browser's cookie jar for this site is
 * the BFF's), and `content-encoding` and `content-length`, which describe the body as it came over the
 * wire, while fetch hands it over decoded: relayed, they would corrupt it. So do the API's CORS headers
 * (`access-control-*`, see {@link relay}).
 */
const DROPPED_RESPONSE_HEADERS = new Set([
  ...HOP_BY_HOP,
  'proxy-authenticate',
  'set-cookie',
  'content-encoding',
  'content-length',
]);

/** Statuses whose answers have no body (a `Response` refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * Forwards a request of the page under `api.prefix` to the API, with the session's access token (and a
 * DPoP proof when the token is bound), and relays the answer.
 *
 * - The token is refreshed first when it is expired or about to be (see `needsRefresh`), through the
 *   gate: a burst of calls makes one grant.
 * - When the API refuses the token anyway (a 401, whatever its challenge), the call is repeated once
 *   after a refresh; a second refusal is relayed as it is. So the body is read whole first, up to
 *   `maxBodyBytes`.
 * - A DPoP nonce challenge of the API is answered once, with the nonce it gave.
 */
export async function proxyApiCall(
  context: BffContext,
  gate: RefreshGate,
  request: Request,
  api: BffApi,
): Promise<Response> {
  const refused = checkCsrf(request, context.options.origin);
  if (refused !== null) return refused;
  const lookup = await readSession(context, request);
  if (lookup.kind !== 'session') return unusableSession(lookup);
  const body = await readBody(request, context.options.maxBodyBytes);
  if (body instanceof Response) return body;

  let session = lookup.session;
  if (needsRefresh(session, Date.now())) {
    const outcome = await gate.fresh(session, 'expiring');
    if (outcome.kind !== 'fresh') return unusableSession(outcome);
    session = outcome.session;
  }
  const url = targetUrl(request, api);
  const headers = keptHeaders(request.headers, DROPPED_REQUEST_HEADERS);
  const call = (current: BffSession) => callApi(context, request, url, headers, body, current);
  const first = await call(session);
  if (first instanceof Response) return first;
  if (!first.rejected) return relay(first);
  await first.response.body?.cancel();
  const outcome = await gate.fresh(session, 'rejected');
  if (outcome.kind !== 'fresh') return unusableSession(outcome);
  const second = await call(outcome.session);
  return second instanceof Response ? second : relay(second);
}

/** An API's answer, and whether it refused the access token. */
interface ApiAnswer {
  readonly response: Response;
  readonly rejected: boolean;
}

/** One call of the API with `session`'s token; a `Response` of the BFF's own when the API did not answer. */
async function callApi(
  context: BffContext,
  request: Request,
  url: URL,
  headers: Headers,
  body: Uint8Array | null,
  session: BffSession,
): Promise<ApiAnswer | Response> {
  try {
    const dpop = session.tokenType === 'DPoP' ? await context.dpopHandles.of(session) : undefined;
    const response = await retryOnDpopNonce(() =>
      protectedResourceRequest(session.accessToken, request.method, url, new Headers(headers), body, {
        ...context.requestOptions(url, request.signal),
        DPoP: dpop,
      }),
    );
    return { response, rejected: response.status === 401 };
  } catch (error) {
    // A challenge is the API's answer all the same (oauth4webapi throws for every one): a 401 says the
    // token was refused, whatever the challenge's error; a 403 insufficient_scope is the API's to relay.
    if (error instanceof WWWAuthenticateChallengeError) {
      return { response: error.response, rejected: error.status === 401 };
    }
    const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : '';
    return jsonError(502, 'ApiUnavailable', `The API at ${url.origin} did not answer${reason ? ` (${reason})` : ''}.`);
  }
}

/** The API's URL for `request`: the part after the prefix appended to the target, with the query. */
function targetUrl(request: Request, api: BffApi): URL {
  const { pathname, search } = new URL(request.url);
  const url = new URL(api.target);
  // The request's path is already normalised (no dot segments), and starts at the prefix.
  url.pathname = `${api.target.pathname}${pathname.slice(api.prefix.length)}`;
  url.search = search;
  return url;
}

/** `headers` without those in `dropped` and those that their `Connection` header names (hop-by-hop too). */
function keptHeaders(headers: Headers, dropped: ReadonlySet<string>): Headers {
  const named = new Set((headers.get('connection') ?? '').split(',').map((name) => name.trim().toLowerCase()));
  const kept = new Headers();
  headers.forEach((value, name) => {
    if (!dropped.has(name) && !named.has(name)) kept.append(name, value);
  });
  return kept;
}

/** The API's answer for the page: its status, body and headers, minus those that stay here. */
function relay({ response }: ApiAnswer): Response {
  const headers = keptHeaders(response.headers, DROPPED_RESPONSE_HEADERS);
  // The API's CORS policy is for pages that call its origin. Relayed, it would be the app's: an API
  // answering `Access-Control-Allow-Origin: *` would open the app's own origin to every site's scripts.
  for (const name of [...headers.keys()]) {
    if (name.startsWith('access-control-')) headers.delete(name);
  }
  // The answer was made for this user's token: no shared cache may keep it unless the API said so.
  if (!headers.has('cache-control')) headers.set('cache-control', 'private, no-store');
  const body = NULL_BODY_STATUSES.has(response.status) ? null : response.body;
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
