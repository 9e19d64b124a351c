/*
 * Public API of ngx-token-refresh/router: the parts of the service client (ngx-token-refresh/client) that need @angular/router.
 */
export { authGuard } from './auth-guard';
export { navigateToLogin } from './navigate-to-login';
