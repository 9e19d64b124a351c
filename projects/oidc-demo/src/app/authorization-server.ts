import { InjectionToken } from '@angular/core';
import * as oauth from 'oauth4webapi';

/**
 * The OpenID Provider's metadata (its endpoints), discovered before the application starts, because
 * `provideOAuthRefresh` needs the token endpoint when the providers are made.
 */
export const AUTHORIZATION_SERVER = new InjectionToken<oauth.AuthorizationServer>('AUTHORIZATION_SERVER');

/** This application as the provider knows it: a public client (no secret), so PKCE protects the code. */
export const CLIENT: oauth.Client = { client_id: 'spa' };

/** What `config.json`, served next to `index.html`, holds: one build runs against any provider. */
interface DemoConfig {
  readonly issuer: string;
}

/**
 * Reads the issuer from `config.json` and fetches its discovery document
 * (`/.well-known/openid-configuration`), checking that it names the same issuer.
 */
export async function loadAuthorizationServer(): Promise<oauth.AuthorizationServer> {
  const response = await fetch('config.json');
  if (!response.ok) throw new Error(`config.json: HTTP ${response.status}`);
  const { issuer } = (await response.json()) as DemoConfig;
  const issuerUrl = new URL(issuer);
  return oauth.processDiscoveryResponse(issuerUrl, await oauth.discoveryRequest(issuerUrl, requestOptions(issuerUrl)));
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
