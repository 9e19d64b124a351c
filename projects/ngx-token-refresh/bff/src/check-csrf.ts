import { jsonError } from './json-error';

/**
 * Refuses (403 `CsrfRefused`) a request that another site may have made with the user's cookie, or
 * returns `null` for one of this site's pages:
 *
 * - `x-csrf: 1` is required. A page of another site cannot send a custom header without a CORS
 *   preflight, and the BFF grants none (the preflight itself carries no `x-csrf`, so it is refused).
 * - `Sec-Fetch-Site`, when the browser sends it, must be `same-origin`: `same-site` is refused too,
 *   since a sibling subdomain (another team's app, a user-content host) is another origin.
 * - `Origin`, when sent, must be `origin` (`null`, sent by sandboxed frames, is refused).
 *
 * A request with neither header but `x-csrf` is a server render's own call (Node's fetch sends
 * neither) or an old browser, and passes: no browser lets another site set `x-csrf` anyway.
 */
export function checkCsrf(request: Request, origin: string): Response | null {
  let problem: string | null = null;
  if (request.headers.get('x-csrf') !== '1') {
    problem = 'send the header x-csrf: 1 (bffSessionInterceptor of ngx-token-refresh/client does)';
  } else if ((request.headers.get('sec-fetch-site') ?? 'same-origin') !== 'same-origin') {
    problem = `the request came from ${request.headers.get('sec-fetch-site')} (Sec-Fetch-Site), not from this origin`;
  } else if ((request.headers.get('origin') ?? origin) !== origin) {
    problem = `the request came from ${request.headers.get('origin')} (Origin), not from ${origin}`;
  }
  return problem === null ? null : jsonError(403, 'CsrfRefused', `Refused: ${problem}.`);
}
