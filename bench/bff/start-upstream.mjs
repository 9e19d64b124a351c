/* global fetch */
import { CLIENT_SECRET } from './settings.mjs';
import { startProcess } from './start-process.mjs';

/**
 * Starts the provider and the API (upstream.mjs) in a process of their own, with access tokens of
 * `accessTokenTtl` seconds and `baseUrl` (the app's origin) registered for the BFF's sign-in. Answers
 * `{ issuer, apiUrl, pid, stats(), resetStats(), signIn(login), stub(), resetStub(), stop() }`: the
 * provider's counts (`/__harness/stats`), a token response of the harness's own sign-in as the BFF's
 * client, and what the API saw (`/__stub/report`).
 */
export async function startUpstream({ accessTokenTtl, baseUrl }) {
  const { child, info, stop } = await startProcess(
    'bench/bff/upstream.mjs',
    { accessTokenTtl, secret: CLIENT_SECRET, redirectUris: [`${baseUrl}/bff/callback`] },
    { name: 'provider and API' },
  );
  const { issuer, apiUrl } = info;
  const json = async (url, init) => {
    const response = await fetch(url, init);
    if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
    return response.status === 204 ? null : response.json();
  };
  return {
    issuer,
    apiUrl,
    pid: child.pid,
    stats: () => json(`${issuer}/__harness/stats`),
    resetStats: () => json(`${issuer}/__harness/reset-stats`, { method: 'POST' }),
    signIn: (login) =>
      json(`${issuer}/__harness/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ login, client: 'bff' }),
      }),
    stub: () => json(`${apiUrl}/__stub/report`),
    resetStub: () => json(`${apiUrl}/__stub/reset`, { method: 'POST' }),
    stop,
  };
}
