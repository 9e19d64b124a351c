// The modules the schematic writes imports of, in one place so that the code it writes, the imports
// it looks for in the app and the instructions it prints name them the same way.

/** The module this schematic installs: the interceptor and its features. */
export const LIBRARY = 'ngx-token-refresh';
/** Its entry point for the client of the service (`provideAuth`, `AuthClient`). */
export const LIBRARY_CLIENT = 'ngx-token-refresh/client';
/** Its entry point for the parts that need the router (`navigateToLogin`, `authGuard`). */
export const LIBRARY_ROUTER = 'ngx-token-refresh/router';
/** Angular's HTTP client (`provideHttpClient`, `withInterceptors`, `withFetch`, `HttpClient`). */
export const HTTP = '@angular/common/http';
/** Angular's core (`inject`, for the refresh call of `--setup custom`). */
export const CORE = '@angular/core';
/** Angular's router (`provideRouter`, whose presence means the app has a login page to send people to). */
export const ROUTER = '@angular/router';
