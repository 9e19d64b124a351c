// `npm run start:bff`: the showcase in its backend-for-frontend mode, after `ng build showcase -c
// production,bff`. Starts the OpenID Provider of the tests (oidc-provider, e2e/oidc/README.md) with its
// confidential `bff` client and 30-second access tokens, long enough to watch one expire, short
// enough not to wait for long; then the showcase's server (serve-bff.ts), whose BFF signs in there and
// keeps the tokens. Sessions in memory, or in PostgreSQL when DATABASE_URL is set. Ctrl+C stops both.
//
//   npm run start:bff                      # http://127.0.0.1:4200, the provider on http://localhost:4444
//   PORT=4300 PROVIDER_PORT=4445 npm run start:bff
//
// The app is on 127.0.0.1 and the provider on localhost: two sites, as an app and its identity
// provider are (Chromium keeps the Secure `__Host-` session cookie on plain http to either).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { startOidcProvider } from '../../../e2e/oidc/oidc-provider-server.mjs';

const port = Number(process.env.PORT ?? 4200);
const origin = `http://127.0.0.1:${port}`;
const accessTokenTtl = Number(process.env.ACCESS_TOKEN_TTL ?? 30);
const secret = randomBytes(24).toString('base64url');

// oidc-provider prints its notices with console.info: on stderr, so that stdout says what to open.
console.info = (...args) => console.error(...args);
const provider = await startOidcProvider({
  port: Number(process.env.PROVIDER_PORT ?? 4444),
  accessTokenTtl,
  bffClient: { secret, redirectUris: [`${origin}/bff/callback`], postLogoutRedirectUris: [`${origin}/`] },
});

const server = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('serve-bff.ts', import.meta.url))], {
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: origin,
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: 'bff',
    OIDC_CLIENT_SECRET: secret,
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});

let stopping = false;
const stop = async (code) => {
  if (stopping) return;
  stopping = true;
  if (server.exitCode === null && server.signalCode === null) {
    server.kill('SIGTERM');
    await once(server, 'exit');
  }
  await provider.close();
  process.exit(code);
};
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));
server.once('exit', (code) => {
  if (!stopping) {
    console.error(`The showcase's server stopped (exit code ${code}).`);
    void stop(code ?? 1);
  }
});

for await (const line of createInterface({ input: server.stdout })) {
  if (line.startsWith('bff ready ')) {
    console.log(`
  The showcase in its backend-for-frontend mode: ${origin}
  Sessions: ${process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'in memory'}
  Identity provider: ${provider.issuer} (oidc-provider; sign in with any name and password)
  Access tokens live ${accessTokenTtl} s; the server refreshes them, the browser never sees one.
  Ctrl+C stops both.
`);
  } else {
    console.log(line);
  }
}
