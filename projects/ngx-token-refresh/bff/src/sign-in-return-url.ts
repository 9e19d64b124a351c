/** The query parameters by which a failed sign-in tells the app why (see `signInFailure`). */
const FAILURE_PARAMETERS = new Set(['bffError', 'bffErrorReason']);

/**
 * Where a sign-in's callback sends the browser: `returnUrl` without the `bffError` and
 * `bffErrorReason` of an earlier failure, with `parameters` (already encoded: `bffError=SignInFailed`)
 * at the end of its query, before its fragment; `returnUrl` itself when there is nothing to remove or add.
 *
 * An earlier failure's parameters go because `signIn()` of the browser returns to the current page by
 * default: a person who pressed Cancel, then Sign in again on the page that said so, would otherwise
 * land signed in on a page that still says the sign-in failed (or get the old reason with a new error).
 *
 * The query is edited as text, not through `URLSearchParams`, which would rewrite the rest of it
 * (`%20` as `+`, `?flag` as `?flag=`) and so change what the app reads.
 */
export function signInReturnUrl(returnUrl: string, parameters: readonly string[] = []): string {
  const hashAt = returnUrl.indexOf('#');
  const beforeHash = hashAt === -1 ? returnUrl : returnUrl.slice(0, hashAt);
  const hash = hashAt === -1 ? '' : returnUrl.slice(hashAt);
  const queryAt = beforeHash.indexOf('?');
  if (queryAt === -1) {
    return parameters.length === 0 ? returnUrl : `${beforeHash}?${parameters.join('&')}${hash}`;
  }
  const query = beforeHash.slice(queryAt + 1).split('&');
  const kept = query.filter((part) => !FAILURE_PARAMETERS.has(parameterName(part)));
  if (kept.length === query.length && parameters.length === 0) return returnUrl;
  const all = [...kept.filter((part) => part !== ''), ...parameters];
  return `${beforeHash.slice(0, queryAt)}${all.length === 0 ? '' : `?${all.join('&')}`}${hash}`;
}

/** The decoded name of `name=value`, as the app's router reads it (`bff%45rror` is `bffError` too). */
function parameterName(part: string): string {
  const name = part.split('=', 1)[0]?.replaceAll('+', ' ') ?? '';
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}
