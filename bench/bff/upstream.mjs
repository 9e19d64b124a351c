// What the BFF talks to, in a process of its own (started by `startUpstream`): the OpenID Provider (the
// e2e harness's oidc-provider, with its confidential client `bff` and strict rotation) and the API
// (`createApiStub`). BENCH_CONFIG: `{ accessTokenTtl, secret, redirectUris }`. Prints
// `ready { issuer, apiUrl }` on stdout once both listen; SIGTERM closes them.
import { startOidcProvider } from '../../e2e/oidc/oidc-provider-server.mjs';
import { createApiStub } from './create-api-stub.mjs';

// oidc-provider prints its notices on stdout, where only the ready line belongs.
console.info = (...args) => console.error(...args);

const { accessTokenTtl, secret, redirectUris } = JSON.parse(process.env.BENCH_CONFIG);
const harness = await startOidcProvider({ accessTokenTtl, bffClient: { secret, redirectUris } });
const api = await createApiStub(harness.provider);
process.once('SIGTERM', () => {
  void Promise.all([harness.close(), api.close()]).then(() => process.exit(0));
});
console.log(`ready ${JSON.stringify({ issuer: harness.issuer, apiUrl: api.url })}`);
