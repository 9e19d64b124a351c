import { InjectionToken } from '@angular/core';
import * as oauth from 'oauth4webapi';

/**
 * The OpenID Provider's metadata (its endpoints), discovered before the application starts, because
 * `provideOAuthRefresh` needs the token endpoint when the providers are made.
 */
export const AUTHORIZATION_SERVER = new InjectionToken<oauth.AuthorizationServer>('AUTHORIZATION_SERVER');

/** This application as the provider knows it: a public client (no secret), so PKCE protects the code. */
export const CLIENT: oauth.Client = { client_id: 'spa' };

/**
 * Whether the tokens are sender-constrained (DPoP, RFC 9449): the refresh goes through `withDPoP()`,
 * and the sign-in's code exchange proves the same key.
 */
export const USE_DPOP = new InjectionToken<boolean>('USE_DPOP', { factory: () => false });

/** What `config.json`, served next to `index.html`, holds: one build runs against any provider. */
interface DemoConfig {
  readonly issuer: string;
  /** DPoP-bound tokens; the provider must support DPoP. Default false (Bearer tokens). */
  readonly dpop?: boolean;
  /**
   * `withProactiveRefresh()`. Default true; false refreshes on 401s only (the browser tests of that
   * path turn it off, since it refreshes even 4-second tokens ahead of expiry).
   */
  readonly refreshAhead?: boolean;
}

/** The provider's metadata and how to use it. */
export interface DemoSetup {
  readonly server: oauth.AuthorizationServer;
  readonly dpop: boolean;
  readonly refreshAhead: boolean;
}

/**
 * Reads `config.json` and fetches the issuer's discovery document
 * (`/.well-known/openid-configuration`), checking that it names the same issuer.
 */
export async function loadDemoSetup(): Promise<DemoSetup> {
  const response = await fetch('config.json');
  if (!response.ok) throw new Error(`config.json: HTTP ${response.status}`);
  const { issuer, dpop, refreshAhead } = (await response.json()) as DemoConfig;
  const issuerUrl = new URL(issuer);
  const server = await oauth.processDiscoveryResponse(
    issuerUrl,
    await oauth.discoveryRequest(issuerUrl, requestOptions(issuerUrl)),
  );
  return { server, dpop: dpop === true, refreshAhead: refreshAhead !== false };
}

/**
 * oauth4webapi speaks HTTPS only; a provider on this machine (development, the browser tests) is
 * allowed over plain HTTP, and nothing else is.
 */
export function requestOptions(url: URL | string): { [oauth.allowInsecureRequests]?: true } {
  const { protocol, hostname } = new URL(url);
  const loopback = hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';
  return protocol === 'http:' && loopback ? { [oauth.allowInsecureRequests]: true } : {};
}
