import {
  type AuthorizationServer,
  type Client,
  type ClientAuth,
  type HttpRequestOptions,
  ClientSecretBasic,
  ClientSecretPost,
  None,
  allowInsecureRequests,
  customFetch,
} from 'oauth4webapi';

import type { ResolvedBffOptions } from './bff-options';
import { type DpopHandles, createDpopHandles } from './create-dpop-handles';
import { describeProviderError } from './describe-provider-error';
import { discoverAuthorizationServer } from './discover-authorization-server';
import { DPOP_ALGORITHM } from './dpop-key';
import { isLoopbackHttp } from './is-loopback-http';

/** What every route of one BFF instance shares: its options, the provider, its background work. */
export interface BffContext {
  readonly options: ResolvedBffOptions;
  /** The client as oauth4webapi knows it. */
  readonly client: Client;
  /** How the client authenticates at the token and revocation endpoints. */
  readonly clientAuth: ClientAuth;
  /** The DPoP handles of the sessions this instance served lately. */
  readonly dpopHandles: DpopHandles;
  /**
   * The provider's metadata: discovered once; a failed discovery is not kept, so that the next request
   * tries again (the provider was down when the server started, say).
   */
  authorizationServer(): Promise<AuthorizationServer>;
  /**
   * oauth4webapi's options for a call to `url`: the `fetch` option, `signal` (default: a timeout of
   * `refreshTimeout`, for the provider), and plain http where the URL is on a loopback host.
   */
  requestOptions<Method, Body>(url: URL, signal?: AbortSignal): HttpRequestOptions<Method, Body>;
  /** Whether this instance binds new sessions' tokens to a DPoP key. */
  usesDpop(server: AuthorizationServer): boolean;
  /**
   * Runs `work` without making the request wait, and keeps `close()` waiting for it; with an `id`,
   * not while work of the same `id` is under way.
   */
  background(work: () => Promise<unknown>, id?: string): void;
  /** All background work under way. */
  settled(): Promise<void>;
  /** `onWarning`, once per `topic` for this instance (a setup mistake shows at every request). */
  warnOnce(topic: string, message: string): void;
}

/** The shared state of one BFF instance; see {@link BffContext}. */
export function createBffContext(options: ResolvedBffOptions): BffContext {
  const client: Client = { client_id: options.clientId };
  const pending = new Set<Promise<unknown>>();
  const running = new Set<string>();
  const warned = new Set<string>();
  let discovery: Promise<AuthorizationServer> | null = null;

  const requestOptions = <Method, Body>(url: URL, signal?: AbortSignal): HttpRequestOptions<Method, Body> => ({
    signal: signal ?? AbortSignal.timeout(options.refreshTimeout),
    [customFetch]: (input, init) => options.fetch(input, init as RequestInit),
    // oauth4webapi refuses plain http, rightly; a provider or API on the developer's machine is the
    // one exception the library allows everywhere.
    ...(isLoopbackHttp(url) ? { [allowInsecureRequests]: true } : {}),
  });

  const context: BffContext = {
    options,
    client,
    clientAuth: clientAuthOf(options),
    dpopHandles: createDpopHandles(client),
    authorizationServer: () =>
      (discovery ??= discoverAuthorizationServer(options.issuer, requestOptions(options.issuer)).catch(
        (error: unknown) => {
          discovery = null;
          throw new Error(`the discovery of ${options.issuer.href} ${describeProviderError(error)}`, { cause: error });
        },
      )),
    requestOptions,
    usesDpop: (server) => options.dpop ?? server.dpop_signing_alg_values_supported?.includes(DPOP_ALGORITHM) === true,
    background: (work, id) => {
      if (id !== undefined && running.has(id)) return;
      if (id !== undefined) running.add(id);
      const done = work()
        .catch((error: unknown) =>
          options.onWarning(`background work failed: ${error instanceof Error ? error.message : String(error)}`),
        )
        .finally(() => {
          pending.delete(done);
          if (id !== undefined) running.delete(id);
        });
      pending.add(done);
    },
    settled: async () => {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    warnOnce: (topic, message) => {
      if (warned.has(topic)) return;
      warned.add(topic);
      options.onWarning(message);
    },
  };
  return context;
}

function clientAuthOf(options: ResolvedBffOptions): ClientAuth {
  switch (options.tokenEndpointAuthMethod) {
    case 'client_secret_basic':
      return ClientSecretBasic(options.clientSecret as string);
    case 'client_secret_post':
      return ClientSecretPost(options.clientSecret as string);
    default:
      return None();
  }
}
