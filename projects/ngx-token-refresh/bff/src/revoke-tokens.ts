import { processRevocationResponse, revocationRequest } from 'oauth4webapi';

import type { BffContext } from './bff-context';
import type { BffSession } from './bff-session';
import { describeProviderError } from './describe-provider-error';

/**
 * Revokes `session`'s refresh token at the provider (RFC 7009), which ends the grant and with it every
 * token of the sign-in; without a refresh token, the access token. Resolves `true` when the provider
 * confirmed; otherwise says why through `onWarning` and resolves `false`: the session ends here either
 * way, and a refresh token nobody holds any more expires at the provider in time.
 */
export async function revokeTokens(context: BffContext, session: BffSession): Promise<boolean> {
  const [token, hint] =
    session.refreshToken === null ? [session.accessToken, 'access_token'] : [session.refreshToken, 'refresh_token'];
  try {
    const server = await context.authorizationServer();
    if (server.revocation_endpoint === undefined) {
      context.warnOnce(
        'no-revocation',
        "the provider has no revocation_endpoint: a signed-out session's refresh token stays valid at the provider until it expires",
      );
      return false;
    }
    const response = await revocationRequest(server, context.client, context.clientAuth, token, {
      ...context.requestOptions(new URL(server.revocation_endpoint)),
      additionalParameters: { token_type_hint: hint },
    });
    await processRevocationResponse(response);
    return true;
  } catch (error) {
    context.options.onWarning(`the revocation of a session's ${hint} ${describeProviderError(error)}`);
    return false;
  }
}
