import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';

// For the specs that run against oidc-provider (not part of the library build). Jest runs the specs
// as CommonJS and the harness is an ES module (e2e/oidc/oidc-provider-server.mjs, see its README),
// so it runs as a child process on the Node that runs Jest.

const SCRIPT = join(__dirname, '../../../../e2e/oidc/oidc-provider-server.mjs');

/** The harness's counts (`GET /__harness/stats`), from the provider's own events. */
export interface ProviderStats {
  readonly codeGrants: number;
  readonly refreshGrants: number;
  readonly refreshFailures: Readonly<Record<string, number>>;
  readonly reuseDetected: number;
  readonly revoked: number;
  readonly droppedAnswers: number;
  readonly userinfo: { readonly ok: number; readonly unauthorized: number };
}

/** The token endpoint's answer to a sign-in or a refresh (RFC 6749 §5.1). */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: string;
  readonly expires_in: number;
  readonly refresh_token: string;
  readonly scope: string;
  readonly id_token: string;
}

export interface OidcProviderSettings {
  /** Seconds an access token lives. */
  readonly accessTokenTtl: number;
  /** Origins that may call the provider from a browser (jsdom's page is `http://localhost`). */
  readonly corsOrigins: readonly string[];
  /** Where the provider keeps its data across restarts; `undefined`: in memory only. */
  readonly storeFile?: string;
}

/** oidc-provider in a child process, with the harness's hooks as methods. */
export interface OidcProviderProcess {
  readonly issuer: string;
  stats(): Promise<ProviderStats>;
  resetStats(): Promise<void>;
  /** The authorization code flow with PKCE, over HTTP, for a new sign-in of `login`. */
  signIn(login?: string): Promise<TokenResponse>;
  /**
   * The same sign-in asking for offline_access without prompt=consent, as an app that forgot it: the
   * provider's default policy drops offline_access, and the answer has no refresh token.
   */
  signInWithoutConsent(login?: string): Promise<Omit<TokenResponse, 'refresh_token'> & { refresh_token?: string }>;
  /** The next refresh grant is processed but its answer never arrives. */
  dropNextRefresh(): Promise<void>;
  /** Every access token issued so far expires now; their refresh tokens stay valid. */
  expireAccessTokens(): Promise<void>;
  /** Presents a refresh token at the token endpoint as another client would; the status and body. */
  refreshFromOutside(refreshToken: string): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Stops the provider (SIGTERM) and waits until it has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port, with `storeFile` or (with `undefined`) without one. */
  start(storeFile: string | undefined): Promise<void>;
}

/** Starts the harness on a free port and waits for its ready line. */
export async function startOidcProviderProcess(settings: OidcProviderSettings): Promise<OidcProviderProcess> {
  let child: ChildProcess | undefined;
  let port = 0;
  const launch = async (storeFile: string | undefined): Promise<string> => {
    const started = await spawnProvider({ ...settings, storeFile }, port);
    child = started.child;
    return started.issuer;
  };
  const issuer = await launch(settings.storeFile);
  port = Number(new URL(issuer).port);
  const call = <T>(method: string, path: string, body?: string, type = 'application/json') =>
    send<T>(issuer, method, path, body, type);
  return {
    issuer,
    stats: async () => (await call<ProviderStats>('GET', '/__harness/stats')).body,
    resetStats: async () => void (await call('POST', '/__harness/reset-stats')),
    signIn: async (login = 'ada') => {
      const { status, body } = await call<TokenResponse>('POST', '/__harness/sign-in', JSON.stringify({ login }));
      if (status !== 200) throw new Error(`sign-in answered ${status}: ${JSON.stringify(body)}`);
      return body;
    },
    signInWithoutConsent: async (login = 'ada') => {
      const request = JSON.stringify({ login, consent: false });
      const { status, body } = await call<TokenResponse>('POST', '/__harness/sign-in', request);
      if (status !== 200) throw new Error(`sign-in answered ${status}: ${JSON.stringify(body)}`);
      return body;
    },
    dropNextRefresh: async () => void (await call('POST', '/__harness/drop-next-refresh')),
    expireAccessTokens: async () => void (await call('POST', '/__harness/expire-access-tokens')),
    refreshFromOutside: (refreshToken) =>
      call<Record<string, unknown>>(
        'POST',
        '/token',
        new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'spa' }).toString(),
        'application/x-www-form-urlencoded',
      ),
    stop: async () => {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGTERM');
      });
    },
    start: async (storeFile) => void (await launch(storeFile)),
  };
}

async function spawnProvider(
  settings: OidcProviderSettings,
  port: number,
): Promise<{ child: ChildProcess; issuer: string }> {
  const child = spawn(process.execPath, [SCRIPT], {
    env: {
      ...process.env,
      PORT: String(port),
      ACCESS_TOKEN_TTL: String(settings.accessTokenTtl),
      CORS_ORIGINS: settings.corsOrigins.join(','),
      STORE_FILE: settings.storeFile ?? '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A Jest worker that ends without afterAll (a failed beforeAll, a timeout) takes the provider along.
  const killChild = () => child.kill();
  process.once('exit', killChild);
  child.once('exit', () => process.off('exit', killChild));
  // Kept for the error below: the provider's own warnings are expected there (Node 20 is not its
  // supported runtime, devInteractions are for development) and are not shown otherwise.
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => (stderr += chunk));
  const issuer = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      stdout += chunk;
      const ready = /^oidc-provider ready (\S+)$/m.exec(stdout);
      if (ready) resolve(ready[1]);
    });
    child.once('exit', (code) => reject(new Error(`oidc-provider exited (${code}) before it was ready:\n${stderr}`)));
  });
  return { child, issuer };
}

/** One request to the harness from Node (its hooks answer no browser: no CORS). */
function send<T>(
  issuer: string,
  method: string,
  path: string,
  body: string | undefined,
  type: string,
): Promise<{ status: number; body: T }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${issuer}${path}`, { method, headers: { 'content-type': type } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as T }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
