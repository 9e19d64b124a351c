import { CORE, HTTP, LIBRARY, LIBRARY_CLIENT, LIBRARY_ROUTER } from './module-names';
import type { Setup } from './resolve-setup';
import type { SymbolRef } from './symbol-ref';

/** A single-quoted TypeScript string literal (the URL pattern already keeps quotes out). */
function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * `provideAuth({...}, withCrossTabSync())` or `provideTokenRefresh({...})`. `provideAuth` uses the
 * refresh cookie, which every tab sends, so its tabs take turns to refresh.
 *
 * @param withRouter whether the app has a router: then a session that ends sends people to the login page.
 * @param indent the indentation of the provider in its array; multi-line code is indented from there.
 */
export function providerCode(setup: Setup, ref: SymbolRef, withRouter: boolean, indent: string): string {
  if (setup.kind === 'auth') {
    // In this order: the imports are written in the order the symbols are named.
    const provideAuth = ref('provideAuth', LIBRARY_CLIENT);
    const onSessionExpired = withRouter ? `, onSessionExpired: ${ref('navigateToLogin', LIBRARY_ROUTER)}` : '';
    return `${provideAuth}({ baseUrl: ${quote(setup.baseUrl)}${onSessionExpired} }, ${ref('withCrossTabSync', LIBRARY)}())`;
  }
  const provideTokenRefresh = ref('provideTokenRefresh', LIBRARY);
  const inner = `${indent}  `;
  return [
    `${provideTokenRefresh}({`,
    `${inner}refreshApiCall: () =>`,
    `${inner}  ${ref('inject', CORE)}(${ref('HttpClient', HTTP)}).post(${quote(setup.refreshUrl)}, null, ` +
      `{ observe: 'response', withCredentials: true }),`,
    `${inner}extractToken: (response) => (response.body as { accessToken: string }).accessToken,`,
    `${indent}})`,
  ].join('\n');
}
