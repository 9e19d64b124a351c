import { ɵisSameOriginPath as isSameOriginPath } from 'ngx-token-refresh';

/**
 * The `returnUrl` to go back to after login, if it is safe: a path inside this app (starting with
 * one `/`), never another site (`//evil.example`, `https://…`, `/\evil.example`). Returns `fallback`
 * otherwise.
 *
 * @usageNotes
 * ```ts
 * router.navigateByUrl(safeReturnUrl(route.snapshot.queryParamMap.get('returnUrl'), '/users'));
 * ```
 */
export function safeReturnUrl(returnUrl: string | null | undefined, fallback = '/'): string {
  return typeof returnUrl === 'string' && isSameOriginPath(returnUrl) ? returnUrl : fallback;
}
