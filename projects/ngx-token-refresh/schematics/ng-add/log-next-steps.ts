import type { SchematicContext } from '@angular-devkit/schematics';

import type { Setup } from './resolve-setup';

/**
 * Says what ng add added to `file`, and what is left for the app to do: sign in and guard routes
 * (`--setup auth`) or hand over the token (`--setup custom`), and list an API on another origin.
 *
 * @param added the providers added, as `[symbol, module]` pairs.
 * @param withRouter whether the app has a router, which decides where an ended session goes.
 */
export function logNextSteps(
  context: SchematicContext,
  setup: Setup,
  file: string,
  added: readonly [string, string][],
  withRouter: boolean,
): void {
  context.logger.info(`Set up ngx-token-refresh in ${file}: added ${added.map(([symbol]) => symbol).join(' and ')}.`);
  if (setup.kind === 'auth') {
    context.logger.info(
      `Next: sign in with inject(AuthClient).login({ username, password }) and guard routes with authGuard (from ngx-token-refresh/router). ` +
        (withRouter
          ? `An ended session goes to /login (provideAuth's loginPath): give it a route.`
          : `Without a router, pass provideAuth an onSessionExpired of your own to handle an ended session.`),
    );
  } else {
    context.logger.info(
      'Next: after login, hand the access token to the interceptor with injectTokenRefresh().setToken(accessToken), ' +
        'and setToken(null) on logout.',
    );
  }
  if (setup.origin) {
    context.logger.info(
      `Requests to ${setup.origin} carry a token only when it is listed: add allowedOrigins: ['${setup.origin}'] ` +
        `to the options of ${setup.kind === 'auth' ? 'provideAuth' : 'provideTokenRefresh'} (see "An API on another origin").`,
    );
  }
}
