import { HttpErrorResponse } from '@angular/common/http';
import { ErrorHandler, PLATFORM_ID } from '@angular/core';
import { firstValueFrom } from 'rxjs';
import {
  type CrossTabSyncOptions,
  TokenRefreshError,
  provideTokenRefresh,
  withCrossTabSync,
  withNoCrossTabSync,
  withProactiveRefresh,
} from 'ngx-token-refresh';
import { type ApiError, AuthClient, provideAuth } from 'ngx-token-refresh/client';
import { createTestJwt } from 'ngx-token-refresh/testing';

import { FAKE_REFRESH, FakeBrowser, FakeServer, type FakeTab, openTab, pause } from '../internal/fake-tabs.spec-helper';

describe('withCrossTabSync', () => {
  let browser: FakeBrowser;
  let server: FakeServer;
  let tabs: FakeTab[];

  beforeEach(() => {
    browser = new FakeBrowser();
    browser.install();
    server = new FakeServer();
    tabs = [];
  });

  afterEach(() => {
    for (const tab of tabs) if (!tab.app.destroyed) tab.app.destroy();
    jest.restoreAllMocks();
    browser.uninstall();
  });

  /** Opens `count` tabs with the feature, all holding the server's current token. */
  async function openTabs(count: number, options: CrossTabSyncOptions = {}, refreshTimeout?: number) {
    for (let client = 1; client <= count; client++) {
      const tab = await openTab(browser, client, server, [
        provideTokenRefresh({ ...FAKE_REFRESH, refreshTimeout }, withCrossTabSync(options)),
      ]);
      tab.state.setToken(server.token);
      tabs.push(tab);
    }
    await pause(5);
    return tabs;
  }

  it('with withProactiveRefresh, makes one refresh ahead of each expiry for all the tabs, and no call fails', async () => {
    // 4-second tokens, taken as issued at the end of their iat second (whole seconds), so 3 s left
    // when they arrive, and due a quarter of their lifetime (1 s) before that: 2 s after they arrive.
    server.tokenFor = (serial) => {
      const now = Math.floor(Date.now() / 1000);
      return createTestJwt({ iat: now, exp: now + 4, jti: `${serial}` });
    };
    server.token = server.tokenFor(0);
    for (let client = 1; client <= 3; client++) {
      tabs.push(
        await openTab(browser, client, server, [
          provideTokenRefresh(FAKE_REFRESH, withCrossTabSync(), withProactiveRefresh({ minInterval: 1000 })),
        ]),
      );
    }
    // Signed in in one tab; the others take its token.
    tabs[0].state.setToken(server.token);
    await pause(20);
    for (const tab of tabs) expect(tab.state.token()).toBe(server.token);

    await pause(2900);
    expect(server.refreshes).toBe(1);
    await pause(2000);
    expect(server.refreshes).toBe(2);
    for (const tab of tabs) expect(tab.state.token()).toBe(server.token);
    // Each time, one tab called; the others took its token, waiting for the lock or idle.
    const succeeded = tabs.map((tab) => tab.events.filter((type) => type === 'refreshSucceeded').length);
    expect(succeeded.reduce((sum, count) => sum + count, 0)).toBe(2);
    // The sign-in's token and each refreshed one reached the two other tabs.
    expect(tabs.flatMap((tab) => tab.events).filter((type) => type.startsWith('tokenReceived')).length).toBe(6);
    expect(await Promise.all(tabs.map((tab) => tab.get('/data')))).toEqual(['/data', '/data', '/data']);
  }, 15_000);

  for (const count of [3, 5]) {
    it(`makes one refresh call for ${count} tabs whose tokens expire together, and every call succeeds`, async () => {
      await openTabs(count);
      server.expireTokens();

      const answers = await Promise.all(tabs.flatMap((tab, index) => [tab.get(`/a${index}`), tab.get(`/b${index}`)]));

      expect(answers).toEqual(tabs.flatMap((_, index) => [`/a${index}`, `/b${index}`]));
      expect(server.refreshes).toBe(1);
      for (const tab of tabs) expect(tab.state.token()).toBe('token-1');
      // One tab refreshed; every other one waited for its turn and took that tab's token.
      const refreshed = tabs.filter((tab) => tab.events.includes('refreshSucceeded'));
      expect(refreshed).toHaveLength(1);
      for (const tab of tabs.filter((other) => !refreshed.includes(other))) {
        expect(tab.events).toContain('tokenReceived(waiting)');
      }
    });
  }

  it('still makes one refresh call when the lock reaches the next tab before the message does', async () => {
    await openTabs(3);
    // The token's message takes far longer than the lock's hand-over: only the version lock tells
    // the next tab that a newer token exists.
    browser.messageDelayMs = 60;
    server.expireTokens();

    await Promise.all(tabs.map((tab, index) => tab.get(`/a${index}`)));

    expect(server.refreshes).toBe(1);
  });

  it('gives an idle tab the new token, so its next call does not fail first', async () => {
    const [first, second] = await openTabs(2);
    server.expireTokens();

    await first.get('/a');
    await pause(5);

    expect(second.events).toEqual(['tokenReceived(idle)']);
    expect(second.state.token()).toBe('token-1');
    await second.get('/b');
    expect(second.events).toEqual(['tokenReceived(idle)']);
  });

  it('with shareToken: false, refreshes one tab at a time, each for itself, and posts no token', async () => {
    await openTabs(3, { shareToken: false });
    server.expireTokens();

    const answers = await Promise.all(tabs.map((tab, index) => tab.get(`/a${index}`)));

    expect(answers).toEqual(['/a0', '/a1', '/a2']);
    expect(server.refreshes).toBe(3);
    expect(server.mostAtOnce).toBe(1);
    expect(tabs.map((tab) => tab.state.token()).sort()).toEqual(['token-1', 'token-2', 'token-3']);
    expect(browser.posted.filter((message) => (message as { type: string }).type === 'token')).toEqual([]);
  });

  it('goes on when the tab holding the lock is closed in the middle of its refresh', async () => {
    const [first, second] = await openTabs(2);
    server.expireTokens();
    server.refreshMs = 50;

    const firstCall = first.get('/a').catch((error: unknown) => error);
    await pause(10); // the first tab holds the lock, its refresh is on the wire
    const secondCall = second.get('/b');
    await pause(10);
    first.app.destroy();
    browser.close(1);

    await expect(secondCall).resolves.toBe('/b');
    expect(second.events).toContain('refreshSucceeded');
    expect(await firstCall).toBeInstanceOf(TokenRefreshError);
  });

  it('refreshes without the lock when another tab keeps it longer than refreshTimeout', async () => {
    jest.spyOn(console, 'warn').mockImplementation(() => undefined); // "refreshTimeout is 100 ms"
    const [tab] = await openTabs(1, {}, 100);
    browser.holdForever('ngx-token-refresh');
    server.expireTokens();

    const started = Date.now();
    await expect(tab.get('/a')).resolves.toBe('/a');

    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
    expect(server.refreshes).toBe(1);
  });

  it('signs every tab out when one signs out, calling onSignedOutElsewhere once where there was a token', async () => {
    const signedOut = [jest.fn(), jest.fn(), jest.fn()];
    for (const [index, onSignedOutElsewhere] of signedOut.entries()) {
      const tab = await openTab(browser, index + 1, server, [
        provideTokenRefresh(FAKE_REFRESH, withCrossTabSync({ onSignedOutElsewhere })),
      ]);
      tabs.push(tab);
    }
    tabs[0].state.setToken('token-0'); // a sign-in: the others take it
    await pause(5);
    tabs[2].state.setToken(null); // the third tab signs out first, on its own
    await pause(5);
    expect(signedOut[0]).toHaveBeenCalledTimes(1);
    expect(signedOut[1]).toHaveBeenCalledTimes(1);
    signedOut.forEach((callback) => callback.mockClear());

    tabs[0].state.setToken('token-0');
    await pause(5);
    tabs[1].state.setToken(null);
    await pause(5);

    expect(tabs.map((tab) => tab.state.token())).toEqual([null, null, null]);
    expect(signedOut[0]).toHaveBeenCalledTimes(1);
    expect(signedOut[1]).not.toHaveBeenCalled(); // the tab that signed out
    expect(signedOut[2]).toHaveBeenCalledTimes(1);
    expect(tabs[0].events).toContain('signedOutElsewhere');
  });

  it('rejects the calls of a tab waiting for its turn with their own errors when another tab signs out', async () => {
    const [first, second] = await openTabs(2);
    server.expireTokens();
    server.refreshMs = 50;
    const firstCall = first.get('/a').catch((error: unknown) => error);
    await pause(10);
    const secondCall = second.get('/b').catch((error: unknown) => error);
    await pause(10);

    first.state.setToken(null);

    const error = await secondCall;
    expect(error).toBeInstanceOf(HttpErrorResponse);
    expect((error as HttpErrorResponse).status).toBe(401);
    expect(second.state.token()).toBeNull();
    await firstCall;
  });

  it('shares a sign-in: the other tabs take its token', async () => {
    const [first, second] = await openTabs(2);
    first.state.setToken(null);
    await pause(5);

    first.state.setToken('token-0');
    await pause(5);

    expect(second.state.token()).toBe('token-0');
    await expect(second.get('/a')).resolves.toBe('/a');
  });

  it("passes an opaque token's lifetime (expires_in) on with it, so the tab that takes it plans its refresh too", async () => {
    for (let client = 1; client <= 2; client++) {
      tabs.push(
        await openTab(browser, client, server, [
          provideTokenRefresh(FAKE_REFRESH, withCrossTabSync(), withProactiveRefresh({ leadTime: 60_000 })),
        ]),
      );
    }
    const [first, second] = tabs;
    const planned: (number | null)[] = [];
    second.state.events.subscribe((event) => {
      if (event.type === 'refreshScheduled') planned.push(event.at);
    });
    const signedInAt = Date.now();
    first.state.setToken('opaque-token', { expiresIn: 600 });
    await pause(5);

    expect(second.state.token()).toBe('opaque-token');
    expect(planned).toHaveLength(1);
    // Due a minute before the expiry the first tab was told, on the clock the tabs share.
    expect(planned[0]).toBeGreaterThanOrEqual(signedInAt + 539_000);
    expect(planned[0]).toBeLessThanOrEqual(Date.now() + 539_000);
  });

  it('a tab opened after a sign-in takes the token of the tab that signed in, without a refresh call', async () => {
    const setup = () => [provideTokenRefresh(FAKE_REFRESH, withCrossTabSync())];
    const first = await openTab(browser, 1, server, setup());
    tabs.push(first);
    first.state.setToken('token-0'); // the sign-in, posted before the second tab existed
    await pause(5);
    const second = await openTab(browser, 2, server, setup());
    tabs.push(second);

    // The new tab restores its session: it asks the tab that holds a token instead of refreshing.
    await expect(firstValueFrom(second.state.refresh())).resolves.toBe('token-0');

    expect(server.refreshes).toBe(0);
    expect(second.events).toEqual(['refreshStarted', 'tokenReceived(waiting)']);
    await expect(second.get('/a')).resolves.toBe('/a');
  });

  it('a tab opened later shares its refresh with the tab that signed in, whose sign-in it never heard', async () => {
    const setup = () => [provideTokenRefresh(FAKE_REFRESH, withCrossTabSync())];
    const first = await openTab(browser, 1, server, setup());
    tabs.push(first);
    first.state.setToken('token-0');
    await pause(5);
    const second = await openTab(browser, 2, server, setup());
    tabs.push(second);
    second.state.setToken('token-0', { restored: true }); // e.g. from a server render
    server.expireTokens();

    // Its version must count as newer than the sign-in's, which it never saw.
    await expect(second.get('/a')).resolves.toBe('/a');
    await pause(5);

    expect(server.refreshes).toBe(1);
    expect(first.state.token()).toBe('token-1');
  });

  describe('across page loads (a tab that reloads or leaves for a sign-in page starts from nothing)', () => {
    /** Opens (or reopens, after close) tab `client`, signed out. */
    async function load(client: number): Promise<FakeTab> {
      const tab = await openTab(browser, client, server, [provideTokenRefresh(FAKE_REFRESH, withCrossTabSync())]);
      tabs.push(tab);
      return tab;
    }

    /** Closes tab `tab` as its page unloads. */
    function unload(tab: FakeTab, client: number): void {
      tab.app.destroy();
      browser.close(client);
    }

    it('a sign-in in a new page of the tab that refreshed last reaches every tab', async () => {
      const [first, second, third] = await openTabs(3);
      server.expireTokens();
      await first.get('/a'); // the first tab refreshes, the others follow
      await pause(5);
      first.state.setToken(null); // signs every tab out
      await pause(5);
      expect([second.state.token(), third.state.token()]).toEqual([null, null]);

      unload(first, 1); // off to the identity server's sign-in page, and back
      const back = await load(4);
      back.state.setToken('token-signed-in-again');
      await pause(5);

      expect([second.state.token(), third.state.token()]).toEqual(['token-signed-in-again', 'token-signed-in-again']);
      expect(server.refreshes).toBe(1);
    });

    it('a reload of the tab that refreshed last takes the live token, and its next refresh reaches every tab', async () => {
      const [first, second] = await openTabs(2);
      server.expireTokens();
      await first.get('/a');
      await pause(5);

      unload(first, 1);
      const reloaded = await load(3);
      await expect(firstValueFrom(reloaded.state.refresh())).resolves.toBe('token-1'); // restores the session
      expect(server.refreshes).toBe(1);

      server.expireTokens();
      await reloaded.get('/b');
      await pause(5);

      expect(server.refreshes).toBe(2);
      expect(second.state.token()).toBe('token-2');
      await expect(second.get('/c')).resolves.toBe('/c');
      expect(server.refreshes).toBe(2);
    });

    it('a tab opened after every other tab closed refreshes at once, and the next tab takes its token', async () => {
      const [first] = await openTabs(1);
      unload(first, 1);

      const alone = await load(2);
      const started = Date.now();
      await expect(firstValueFrom(alone.state.refresh())).resolves.toBe('token-1');
      // Nobody to ask: no wait for an answer (the grace for a silent tab is a second).
      expect(Date.now() - started).toBeLessThan(500);

      const next = await load(3);
      await expect(firstValueFrom(next.state.refresh())).resolves.toBe('token-1');
      expect(server.refreshes).toBe(1);
    });
  });

  it('asks in vain without waiting when the tabs holding a version have no token to give', async () => {
    const [first] = await openTabs(1);
    first.state.setToken('opaque', { expiresIn: 0.001 }); // expired as far as this tab knows
    await pause(5);
    const second = await openTab(browser, 2, server, [provideTokenRefresh(FAKE_REFRESH, withCrossTabSync())]);
    tabs.push(second);

    const started = Date.now();
    await expect(firstValueFrom(second.state.refresh())).resolves.toBe('token-1');

    expect(Date.now() - started).toBeLessThan(500);
    expect(browser.posted.map((message) => (message as { type: string }).type)).toEqual([
      'token',
      'token',
      'ask',
      'current',
      'token',
    ]);
  });

  it('ignores whatever else arrives on its channel', async () => {
    const [tab] = await openTabs(1);
    for (const stranger of [
      null,
      'token',
      42,
      { type: 'token' },
      { type: 'token', token: 'Bearer x', version: 99 },
      { type: 'token', token: '', version: 99 },
      { type: 'token', token: 'forged', version: '99' },
      { type: 'token', token: 'forged', version: Number.MAX_VALUE },
      { type: 'token', token: 'forged', version: -1 },
      { type: 'signedIn', token: 'forged', version: 99 },
      { type: 'current', to: 'another-tab', token: 'forged', version: Date.now() + 60_000 },
      { type: 'current', token: 'forged', version: Date.now() + 60_000 },
    ]) {
      browser.postAsStranger('ngx-token-refresh', stranger);
    }
    await pause(5);

    expect(tab.state.token()).toBe('token-0');
    expect(tab.events).toEqual([]);
  });

  it('never lets an older token replace a newer one', async () => {
    const [tab] = await openTabs(1);
    const now = Date.now();
    browser.postAsStranger('ngx-token-refresh', { type: 'token', token: 'newer', version: now + 60_000 });
    await pause(5);
    browser.postAsStranger('ngx-token-refresh', { type: 'token', token: 'older', version: now + 59_000 });
    await pause(5);

    expect(tab.state.token()).toBe('newer');
  });

  it('keeps tabs with different names apart', async () => {
    const first = await openTab(browser, 1, server, [
      provideTokenRefresh(FAKE_REFRESH, withCrossTabSync({ name: 'a' })),
    ]);
    const second = await openTab(browser, 2, server, [
      provideTokenRefresh(FAKE_REFRESH, withCrossTabSync({ name: 'b' })),
    ]);
    tabs.push(first, second);

    first.state.setToken('token-0');
    await pause(5);

    expect(second.state.token()).toBeNull();
  });

  it('does nothing on the server: each render refreshes on its own', async () => {
    const tab = await openTab(browser, 1, server, [
      { provide: PLATFORM_ID, useValue: 'server' },
      provideTokenRefresh(FAKE_REFRESH, withCrossTabSync()),
    ]);
    tabs.push(tab);
    tab.state.setToken('token-0');

    expect(browser.posted).toEqual([]);
    server.expireTokens();
    await tab.get('/a');
    expect(browser.heldNames()).toEqual([]);
  });

  it('does nothing where the browser has no Web Locks: the tab refreshes as without the feature', async () => {
    browser.uninstall();
    const tab = await openTab(browser, 1, server, [provideTokenRefresh(FAKE_REFRESH, withCrossTabSync())]);
    tabs.push(tab);
    tab.state.setToken('token-0');
    server.expireTokens();

    await expect(tab.get('/a')).resolves.toBe('/a');
    expect(browser.posted).toEqual([]);
    browser.install();
  });

  it('releases its locks and closes its channel when the application is destroyed', async () => {
    const [tab] = await openTabs(1);
    server.expireTokens();
    await tab.get('/a');
    expect(browser.heldNames()).toEqual([expect.stringMatching(/^ngx-token-refresh:v:\d+$/)]);

    tab.app.destroy();
    tabs = [];
    await pause(5);

    expect(browser.heldNames()).toEqual([]);
  });

  it('rejects options of the wrong type in dev mode, and both withCrossTabSync and withNoCrossTabSync', () => {
    expect(() => withCrossTabSync({ shareToken: 'yes' as unknown as boolean })).toThrow(
      /shareToken must be true or false/,
    );
    expect(() => withCrossTabSync({ name: '' })).toThrow(/name must be a non-empty string/);
    expect(() => withCrossTabSync({ onSignedOutElsewhere: 'x' as unknown as () => void })).toThrow(
      /onSignedOutElsewhere must be a function/,
    );
    expect(() => provideTokenRefresh(FAKE_REFRESH, withCrossTabSync(), withNoCrossTabSync())).toThrow(
      /both withCrossTabSync\(\) and withNoCrossTabSync\(\)/,
    );
  });

  describe('with provideAuth', () => {
    /** Tabs of an app set up with provideAuth (its refresh goes to POST /auth/refresh, as the fake's). */
    async function openAuthTabs(
      count: number,
      features: Parameters<typeof provideAuth>[1][] = [withCrossTabSync()],
      config = {},
    ) {
      const expired: ApiError[][] = [];
      for (let client = 1; client <= count; client++) {
        const seen: ApiError[] = [];
        expired.push(seen);
        const tab = await openTab(browser, client, server, [
          provideAuth({ ...config, onSessionExpired: (error) => seen.push(error) }, ...features),
          { provide: ErrorHandler, useValue: { handleError: (error: unknown) => fail(error) } },
        ]);
        tabs.push(tab);
      }
      return expired;
    }

    it('makes one refresh for all tabs with withCrossTabSync()', async () => {
      await openAuthTabs(3);
      tabs[0].state.setToken(server.token);
      await pause(5);
      server.expireTokens();

      await Promise.all(tabs.map((tab, index) => tab.get(`/a${index}`)));

      expect(server.refreshes).toBe(1);
    });

    it("signs the other tabs out with onSessionExpired and the code 'SignedOutElsewhere'", async () => {
      const expired = await openAuthTabs(2);
      tabs[0].state.setToken(server.token);
      await pause(5);

      tabs[0].state.setToken(null);
      await pause(5);

      expect(expired[0]).toEqual([]);
      expect(expired[1].map((error) => [error.status, error.code])).toEqual([[401, 'SignedOutElsewhere']]);
      expect(tabs[1].state.token()).toBeNull();
    });

    it('restores the session of a new tab from a tab that has it, without a refresh call', async () => {
      await openAuthTabs(1);
      tabs[0].state.setToken(server.token);
      await pause(5);

      await openAuthTabs(1);
      const restored = await firstValueFrom(tabs[1].app.injector.get(AuthClient).restoreSession());

      expect(restored).toBe(true);
      expect(tabs[1].state.token()).toBe('token-0');
      expect(server.refreshes).toBe(0);
    });

    it('does not sign the other tabs out when a tab without a session fails to restore one', async () => {
      // Each tab for itself (no token to take from the first): the second tab's refresh is refused.
      const features = [withCrossTabSync({ shareToken: false })];
      const expired = await openAuthTabs(1, features);
      tabs[0].state.setToken(server.token);
      await pause(5);
      server.refreshStatus = 401; // e.g. the cookie of this moment is refused

      // A second tab opens; it has no session of its own yet, and its restore attempt is refused.
      await openAuthTabs(1, features);
      const restored = await firstValueFrom(tabs[1].app.injector.get(AuthClient).restoreSession());
      await pause(5);

      expect(restored).toBe(false);
      expect(browser.posted).toEqual([]);
      expect(tabs[0].state.token()).toBe('token-0');
      expect(expired[0]).toEqual([]);
    });

    it('leaves it off without the feature, saying so in dev mode for the cookie flow only', async () => {
      const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        await openAuthTabs(1, []);
        expect(warn.mock.calls.map(([message]) => String(message))).toEqual([
          expect.stringMatching(/^ngx-token-refresh: provideAuth uses the refresh cookie.*withCrossTabSync\(\)/),
        ]);
        await openAuthTabs(1, [withNoCrossTabSync()]);
        const store = { get: () => 'refresh', set: () => undefined };
        await openAuthTabs(1, [], { refreshFlow: 'body', refreshTokenStore: store });
        expect(warn).toHaveBeenCalledTimes(1);
      } finally {
        warn.mockRestore();
      }

      for (const tab of tabs) tab.state.setToken('token-0');

      expect(browser.posted).toEqual([]);
    });
  });
});
