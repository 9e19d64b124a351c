/*
 * Public API of ngx-token-refresh/bff: the backend-for-frontend that runs in the app's own Node server
 * (the SSR server), keeps the tokens there and gives the browser only a session cookie. Web-standard
 * code (fetch, Web Crypto) with no browser, Angular or `node:` import.
 */

export { BffError } from './bff-error';
export type { BffErrorCode } from './bff-error';
