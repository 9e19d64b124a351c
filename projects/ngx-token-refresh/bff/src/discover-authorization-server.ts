import {
  type AuthorizationServer,
  type HttpRequestOptions,
  discoveryRequest,
  processDiscoveryResponse,
} from 'oauth4webapi';

/**
 * The provider's metadata, from its OpenID Connect discovery document (`/.well-known/openid-configuration`),
 * checked by oauth4webapi (the `issuer` in it must be `issuer`). The BFF keeps the answer for the
 * instance's life and keeps passing the same object: oauth4webapi caches the provider's signing keys
 * per metadata object.
 */
export async function discoverAuthorizationServer(
  issuer: URL,
  requestOptions: HttpRequestOptions<'GET'>,
): Promise<AuthorizationServer> {
  const response = await discoveryRequest(issuer, { ...requestOptions, algorithm: 'oidc' });
  return processDiscoveryResponse(issuer, response);
}
