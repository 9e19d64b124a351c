/** What the harness's `GET /__harness/stats` answers (e2e/oidc/README.md), as far as these tests read it. */
export interface ProviderStats {
  readonly codeGrants: number;
  readonly refreshGrants: number;
  readonly refreshFailures: Readonly<Record<string, number>>;
  readonly reuseDetected: number;
  readonly revoked: number;
  readonly heldRefreshes: {
    readonly held: number;
    readonly released: number;
    readonly dropped: number;
    readonly waiting: number;
    readonly waitingClientGone: number;
  };
  readonly userinfo: { readonly ok: number; readonly unauthorized: number };
}

/** What `GET /__harness/issued-tokens` answers. */
export interface IssuedTokens {
  readonly accessTokens: readonly { readonly value: string; readonly clientId: string; readonly live: boolean }[];
  readonly refreshTokens: readonly { readonly value: string; readonly clientId: string }[];
  readonly idTokens: readonly { readonly value: string; readonly clientId: string }[];
}

/** The oidc-provider harness's test hooks (`/__harness/`, e2e/oidc/README.md), over HTTP. */
export interface ProviderHooks {
  readonly issuer: string;
  stats(): Promise<ProviderStats>;
  resetStats(): Promise<void>;
  /** Every access token issued so far expires now; how many. */
  expireAccessTokens(): Promise<number>;
  holdNextRefresh(): Promise<void>;
  release(): Promise<{ released: number; dropped: number }>;
  issuedTokens(): Promise<IssuedTokens>;
}

/** The hooks of the harness at `issuer`. */
export function providerHooks(issuer: string): ProviderHooks {
  const call = async <T>(method: 'GET' | 'POST', hook: string): Promise<T> => {
    const response = await fetch(`${issuer}/__harness/${hook}`, { method });
    if (!response.ok) throw new Error(`${method} /__harness/${hook}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  return {
    issuer,
    stats: () => call('GET', 'stats'),
    resetStats: async () => void (await call('POST', 'reset-stats')),
    expireAccessTokens: async () => (await call<{ expired: number }>('POST', 'expire-access-tokens')).expired,
    holdNextRefresh: async () => void (await call('POST', 'hold-next-refresh')),
    release: () => call('POST', 'release'),
    issuedTokens: () => call('GET', 'issued-tokens'),
  };
}
