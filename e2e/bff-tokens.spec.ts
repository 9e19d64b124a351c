import { APP_ORIGIN, PROVIDER_ISSUER } from './playwright.bff.config';
import { expect, test } from './bff/bff-test';
import { fireBursts } from './bff/fire-bursts';
import { openSignedInTabs } from './bff/open-signed-in-tabs';
import type { IssuedTokens } from './bff/provider-hooks';
import { readScriptReadablePlaces } from './bff/read-script-readable-places';
import { recordResponses } from './bff/record-responses';

// No token reaches a place the page's scripts can read: the showcase's bff build in three tabs, signed
// in, calling the API through the BFF across a refresh; then every response the pages received
// (bodies and headers, from the first page to the last call) and everything the scripts can read in
// each tab are searched for every token value the provider ever issued (its issued-tokens hook).

test("no access, refresh or ID token in any response the pages received, nor in the DOM, storage, IndexedDB, caches or the scripts' cookies", async ({
  newContext,
  stack,
}) => {
  const context = await newContext();
  const responses = recordResponses(context);
  const mark = stack.balancer.log.length;
  const tabs = await openSignedInTabs(context, 'ada', 3, 4);
  await stack.provider.expireAccessTokens();
  expect((await fireBursts(tabs)).map(({ ok }) => ok)).toEqual([4, 4, 4]);
  const tokens = await stack.provider.issuedTokens();
  // The sign-in's tokens and the refreshed ones, at least.
  expect(tokens.refreshTokens.length).toBeGreaterThanOrEqual(2);

  // Every answer of the app's origin as it went to the browser (the balancer's copy: Chromium keeps no
  // body of a page that navigated on, such as the callback's, nor of some fetches read as streams).
  const appAnswers = stack.balancer.log.slice(mark);
  for (const { method, path, status, answer } of appAnswers) {
    expect(answer, `${method} ${path}`).not.toBeNull();
    expect(findTokens(`${answer!.headers}\n${answer!.body}`, tokens), `${status} ${method} ${path}`).toEqual([]);
  }
  const bodiesOf = (path: string) =>
    appAnswers.filter((entry) => entry.path.split('?')[0] === path).map(({ answer }) => answer!.body);
  expect(bodiesOf('/api/me')).toEqual(Array.from({ length: 12 }, () => '{"sub":"ada"}'));
  // The first tab signed out, then signed in, and the two others.
  expect(bodiesOf('/bff/session').length).toBe(4);
  expect(bodiesOf('/bff/callback')[0]).toContain('http-equiv="refresh"');
  // The API's CORS headers stayed at the BFF: the app's origin opens itself to no other site's scripts.
  expect(appAnswers.filter(({ answer }) => /^access-control-/im.test(answer!.headers))).toEqual([]);
  // Every response Chromium received, the provider's pages included, with whatever body it kept.
  const received = await responses.settled();
  expect(received.some(({ url, body }) => url.startsWith(`${PROVIDER_ISSUER}/interaction/`) && body)).toBe(true);
  for (const response of received) {
    const { pathname, search } = new URL(response.url);
    if (response.url.startsWith(APP_ORIGIN)) expect(appAnswers.map(({ path }) => path)).toContain(pathname + search);
    expect(
      findTokens(`${response.headers}\n${response.body ?? ''}`, tokens),
      `${response.status} ${response.url}`,
    ).toEqual([]);
  }

  for (const [index, tab] of tabs.entries()) {
    const places = await readScriptReadablePlaces(tab);
    for (const [place, text] of Object.entries(places)) {
      if (typeof text === 'string') expect(findTokens(text, tokens), `tab ${index + 1}, ${place}`).toEqual([]);
    }
    expect(places.dom).toMatch(/Signed in as <strong[^>]*>ada<\/strong>/);
    expect(places.cookie).toBe('');
  }
  // The one cookie of the app is the session's: HttpOnly (no script reads it), and no token either.
  const cookies = await context.cookies(APP_ORIGIN);
  expect(cookies.map(({ name, httpOnly, secure, sameSite }) => ({ name, httpOnly, secure, sameSite }))).toEqual([
    { name: '__Host-bff-session', httpOnly: true, secure: true, sameSite: 'Strict' },
  ]);
  expect(findTokens(cookies[0]!.value, tokens)).toEqual([]);
});

test('signing out hands the page the ID token only, inside the end-session URL; never an access or refresh token', async ({
  newContext,
  stack,
}) => {
  const context = await newContext();
  const [tab] = await openSignedInTabs(context, 'ada', 1);
  const responses = recordResponses(context);
  const mark = stack.balancer.log.length;

  await tab!.getByTestId('sign-out').click();
  await tab!.getByRole('button', { name: /yes, sign me out/i }).click();
  await expect(tab!.getByTestId('sign-in')).toBeVisible();

  const tokens = await stack.provider.issuedTokens();
  const found = [
    ...stack.balancer.log
      .slice(mark)
      .flatMap(({ method, path, answer }) =>
        findTokens(`${answer?.headers}\n${answer?.body}`, tokens).map((kind) => `${kind} in ${method} ${path}`),
      ),
    ...(await responses.settled())
      .filter(({ url }) => !url.startsWith(APP_ORIGIN))
      .flatMap((response) =>
        findTokens(`${response.headers}\n${response.body ?? ''}`, tokens).map((kind) => `${kind} in ${response.url}`),
      ),
  ];
  // RP-initiated logout: the provider's end-session page takes the ID token as id_token_hint, and
  // the BFF's answer to POST /bff/logout, which the page's script reads, carries it in endSessionUrl.
  expect(found).toEqual(['ID token in POST /bff/logout']);
});

/** The kinds of the tokens in `tokens` whose value occurs in `text`. */
function findTokens(text: string, tokens: IssuedTokens): string[] {
  return [
    ...tokens.accessTokens.filter(({ value }) => text.includes(value)).map(() => 'access token'),
    ...tokens.refreshTokens.filter(({ value }) => text.includes(value)).map(() => 'refresh token'),
    ...tokens.idTokens.filter(({ value }) => text.includes(value)).map(() => 'ID token'),
  ];
}
