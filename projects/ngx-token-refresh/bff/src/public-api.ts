/*
 * Public API of ngx-token-refresh/bff: the backend-for-frontend that runs in the app's own Node server
 * (the SSR server), keeps the tokens there and gives the browser only a session cookie. Web-standard
 * code (fetch, Web Crypto) with no browser, Angular or `node:` import.
 */

export type { Bff } from './bff';
export { BffError } from './bff-error';
export type { BffErrorCode } from './bff-error';
export type { BffOptions } from './bff-options';
export type { BffPostgresClient, BffPostgresPool } from './bff-postgres-pool';
export type { BffSession } from './bff-session';
export type { BffSessionChange, BffSessionStore } from './bff-session-store';
export { createBff } from './create-bff';
export { createBffMemoryStore } from './create-bff-memory-store';
export { createBffPostgresStore } from './create-bff-postgres-store';
export type { BffPostgresStoreOptions } from './create-bff-postgres-store';
