/*
 * Public API of ngx-token-refresh/testing: helpers for applications' own tests.
 */
export { createTestJwt } from './create-test-jwt';
export type { TestJwtClaims } from './create-test-jwt';
