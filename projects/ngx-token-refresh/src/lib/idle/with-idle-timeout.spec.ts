import { DOCUMENT } from '@angular/core';
import {
  type IdleTimeoutOptions,
  type TokenRefreshFeature,
  injectIdleTimeout,
  provideTokenRefresh,
  withCrossTabSync,
  withIdleTimeout,
  withProactiveRefresh,
} from 'ngx-token-refresh';
import { createTestJwt } from 'ngx-token-refresh/testing';

import { FAKE_REFRESH, FakeBrowser, FakeServer, type FakeTab, openTab } from '../internal/fake-tabs.spec-helper';

// withIdleTimeout on a fake clock: several applications (tabs) of one browser profile share its Web
// Locks, BroadcastChannel and localStorage (FakeBrowser), each with a document of its own, where the
// test makes activity. Chromium runs the real thing against the reference server (e2e/).

const IDLE = 60_000;
const WARN = 20_000;
const START = Date.UTC(2026, 0, 1, 9, 0, 0);

/** A document of one tab, whose relative URLs resolve against the page's origin as a tab's do. */
function tabDocument(): Document {
  const tabDoc = document.implementation.createHTMLDocument('tab');
  const base = tabDoc.createElement('base');
  base.href = 'http://localhost/';
  tabDoc.head.append(base);
  return tabDoc;
}

interface IdleTab extends FakeTab {
  readonly document: Document;
  readonly idle: ReturnType<typeof injectIdleTimeout>;
  /** Somebody clicks in this tab. */
  click(): void;
}

describe('withIdleTimeout', () => {
  let browser: FakeBrowser;
  let server: FakeServer;
  let tabs: IdleTab[];
  let signOuts: { tab: number; token: string }[];
  let timeouts: number[];

  beforeEach(() => {
    jest.useFakeTimers({ now: START });
    localStorage.clear();
    browser = new FakeBrowser();
    browser.install();
    server = new FakeServer();
    server.refreshMs = 10;
    server.apiMs = 1;
    tabs = [];
    signOuts = [];
    timeouts = [];
  });

  afterEach(() => {
    for (const tab of tabs) tab.app.destroy();
    browser.uninstall();
    jest.useRealTimers();
    localStorage.clear();
  });

  async function open(options: Partial<IdleTimeoutOptions> = {}, ...features: TokenRefreshFeature[]) {
    const client = tabs.length + 1;
    const tabDoc = tabDocument();
    const tab = await openTab(browser, client, server, [
      { provide: DOCUMENT, useValue: tabDoc },
      provideTokenRefresh(
        FAKE_REFRESH,
        withCrossTabSync(),
        withIdleTimeout({
          idle: IDLE,
          warnBefore: WARN,
          signOut: (token) => signOuts.push({ tab: client, token }),
          onTimeout: () => timeouts.push(client),
          ...options,
        }),
        ...features,
      ),
    ]);
    const idle = tab.app.injector.runInContext(() => injectIdleTimeout());
    const idleTab: IdleTab = {
      ...tab,
      document: tabDoc,
      idle,
      click: () => tabDoc.dispatchEvent(new Event('pointerdown')),
    };
    tabs.push(idleTab);
    return idleTab;
  }

  /** Moves the clock on by `ms`, running the timers (and the messages they deliver) as they come due. */
  const advance = (ms: number) => jest.advanceTimersByTimeAsync(ms);

  it('warns before the end, stays on stayActive(), and at the deadline ends the session: token cleared, signOut once, onTimeout', async () => {
    const tab = await open();
    expect(tab.idle.state()).toBe('off');
    tab.state.setToken('token-0');
    expect(tab.idle.state()).toBe('active');

    await advance(IDLE - WARN);
    expect(tab.idle.state()).toBe('warning');
    expect(tab.idle.remaining()).toBe(WARN);
    await advance(5_000);
    expect(tab.idle.remaining()).toBe(WARN - 5_000);

    tab.idle.stayActive();
    expect(tab.idle.state()).toBe('active');
    expect(tab.idle.remaining()).toBeNull();

    await advance(IDLE - 1);
    expect(tab.state.token()).toBe('token-0');
    await advance(1);
    expect(tab.idle.state()).toBe('timedOut');
    expect(tab.state.token()).toBeNull();
    expect(tab.events).toContain('idleTimeout');
    expect(signOuts).toEqual([{ tab: 1, token: 'token-0' }]);
    expect(timeouts).toEqual([1]);
  });

  it('caps warnBefore at half of idle: { idle: 60 s, warnBefore: 60 s } warns after 30 s, for the last 30 s', async () => {
    const tab = await open({ idle: 60_000, warnBefore: 60_000 });
    tab.state.setToken('token-0');

    await advance(30_000 - 1);
    expect(tab.idle.state()).toBe('active');
    await advance(1);
    expect(tab.idle.state()).toBe('warning');
    expect(tab.idle.remaining()).toBe(30_000);
    await advance(30_000);
    expect(tab.idle.state()).toBe('timedOut');
  });

  it('counts activity in any tab for every tab: with clicks in one tab only, neither signs out', async () => {
    const [first, second] = [await open(), await open()];
    first.state.setToken('token-0');
    await advance(0);
    expect(second.state.token()).toBe('token-0');
    expect(second.idle.state()).toBe('active');

    for (let minute = 0; minute < 5; minute++) {
      for (let step = 0; step < 6; step++) {
        await advance(10_000);
        first.click();
      }
    }
    for (const tab of [first, second]) {
      expect(tab.idle.state()).toBe('active');
      expect(tab.state.token()).toBe('token-0');
    }
    expect(signOuts).toEqual([]);
  });

  it('shares activity at most once per throttle interval, and the last of a burst at its end', async () => {
    const [first] = [await open(), await open()];
    first.state.setToken('token-0');
    await advance(5_000);
    const before = browser.posted.length;
    for (let i = 0; i < 50; i++) {
      first.click();
      await advance(10);
    }
    await advance(IDLE / 20);
    // 50 clicks over 500 ms with a 3-second throttle: the first one, and the last one at the end of the window.
    expect(
      browser.posted.slice(before).filter((message) => (message as { type: string }).type === 'idleActivity'),
    ).toHaveLength(2);
  });

  it('ends every tab at the deadline when nobody is active, and tells the server once', async () => {
    const [first, second, third] = [await open(), await open(), await open()];
    first.state.setToken('token-0');
    await advance(IDLE);
    for (const tab of [first, second, third]) {
      expect(tab.idle.state()).toBe('timedOut');
      expect(tab.state.token()).toBeNull();
    }
    expect(signOuts).toHaveLength(1);
    expect(timeouts.sort()).toEqual([1, 2, 3]);
  });

  it('ends the session of a tab that slept through the deadline before its first request goes out', async () => {
    const tab = await open();
    tab.state.setToken('token-0');
    // The device slept: the clock moved on, no timer ran.
    jest.setSystemTime(START + IDLE + 5_000);
    const sent = tab.get('/api/data').catch((error: unknown) => error);
    await advance(50);
    await sent;
    expect(tab.idle.state()).toBe('timedOut');
    expect(signOuts).toEqual([{ tab: 1, token: 'token-0' }]);
    // The request went without the token, and its 401 sent no refresh: only a sign-in brings a session back.
    expect(server.refreshes).toBe(0);
  });

  it('never ends a session somebody uses in another tab, though this tab missed their messages (frozen)', async () => {
    const [first, second] = [await open(), await open()];
    first.state.setToken('token-0');
    await advance(0);
    browser.muted.add(2);
    for (let step = 0; step < 18; step++) {
      await advance(10_000);
      first.click();
    }
    // The second tab's own deadline has long passed, but the activity stored by the first says otherwise.
    expect(second.idle.state()).toBe('active');
    expect(second.state.token()).toBe('token-0');
    expect(first.state.token()).toBe('token-0');
    expect(signOuts).toEqual([]);
  });

  it('sends no refresh after the session ended, and starts again at the next sign-in', async () => {
    const tab = await open();
    tab.state.setToken('token-0');
    await advance(IDLE);
    expect(tab.idle.state()).toBe('timedOut');
    let failed: unknown = 'pending';
    tab.get('/api/data').catch((error: unknown) => (failed = error));
    await advance(50);
    expect(failed).toMatchObject({ status: 401 });
    expect(server.refreshes).toBe(0);

    tab.state.setToken('token-0');
    expect(tab.idle.state()).toBe('active');
    server.expireTokens();
    let retried: unknown = 'pending';
    tab.get('/api/data').then(
      (value) => (retried = value),
      (error: unknown) => (retried = error),
    );
    // (Cross-tab sync may wait a moment for another tab's token before it refreshes.)
    await advance(10_000);
    expect(retried).toBe('/api/data');
    expect(server.refreshes).toBe(1);
  });

  it('refreshes ahead of expiry until the warning, not during it nor after the end', async () => {
    const jwt = (serial: number) => {
      const iat = Math.floor(Date.now() / 1000);
      return createTestJwt({ iat, exp: iat + 30, jti: `${serial}` });
    };
    server.tokenFor = jwt;
    // 30-second tokens are refreshed 22.5 s into their life; nobody is active, so the warning runs
    // from 100 s to 120 s.
    const tab = await open({ idle: 120_000, warnBefore: 20_000 }, withProactiveRefresh({ leadTime: 10_000 }));
    tab.state.setToken(jwt(0));
    // A person reading a page: the session is kept as usual (a refresh ahead of each expiry).
    const started = () => tab.events.filter((type) => type === 'refreshStarted').length;
    await advance(99_000);
    expect(tab.idle.state()).toBe('active');
    expect(started()).toBe(3);
    // The next one falls due in the warning: the session is about to end, nothing renews it.
    await advance(20_000);
    expect(tab.idle.state()).toBe('warning');
    expect(started()).toBe(3);
    await advance(10_000);
    expect(tab.idle.state()).toBe('timedOut');
    expect(started()).toBe(3);
  });

  it('does not revive a session whose tabs were all gone past the deadline (a discarded tab, a closed browser)', async () => {
    // The last activity the tabs stored was longer ago than the idle time.
    localStorage.setItem('ngx-token-refresh:idle', String(START - IDLE - 5_000));
    const tab = await open();
    // The session comes back without a sign-in (put back after the reload, or refreshed with the cookie).
    tab.state.setToken('token-0', { restored: true });
    expect(tab.idle.state()).toBe('timedOut');
    expect(tab.state.token()).toBeNull();
    await advance(0);
    expect(signOuts).toEqual([{ tab: 1, token: 'token-0' }]);
    expect(timeouts).toEqual([1]);

    // A sign-in starts afresh, whatever was stored.
    tab.state.setToken('token-1');
    expect(tab.idle.state()).toBe('active');
  });

  it('goes on from the stored activity when a session comes back within the idle time (a reload)', async () => {
    localStorage.setItem('ngx-token-refresh:idle', String(START - 50_000));
    const tab = await open();
    tab.state.setToken('token-0', { restored: true });
    // 10 s were left, within the warning: not a new idle time from the reload.
    expect(tab.idle.state()).toBe('warning');
    expect(tab.idle.remaining()).toBe(10_000);
    await advance(10_000);
    expect(tab.idle.state()).toBe('timedOut');
  });

  it('ends the session before a refresh ahead of expiry when the tab wakes after the deadline', async () => {
    const jwt = (serial: number) => {
      const iat = Math.floor(Date.now() / 1000);
      return createTestJwt({ iat, exp: iat + 30, jti: `${serial}` });
    };
    server.tokenFor = jwt;
    const tab = await open({}, withProactiveRefresh({ leadTime: 10_000 }));
    tab.state.setToken(jwt(0));
    // The device slept past the deadline; shown again, the refresh due and the deadline meet.
    jest.setSystemTime(START + IDLE + 5_000);
    tab.document.dispatchEvent(new Event('visibilitychange'));
    await advance(50);
    expect(tab.idle.state()).toBe('timedOut');
    expect(tab.events).not.toContain('refreshStarted');
    expect(server.refreshes).toBe(0);
  });

  it('lets proactive refresh go on after "Stay signed in" ends the warning', async () => {
    const jwt = (serial: number) => {
      const iat = Math.floor(Date.now() / 1000);
      return createTestJwt({ iat, exp: iat + 30, jti: `${serial}` });
    };
    server.tokenFor = jwt;
    const started = () => tab.events.filter((type) => type === 'refreshStarted').length;
    // 30-second tokens, refreshed 21.5 s into their life; the warning from 40 s.
    const tab = await open({}, withProactiveRefresh({ leadTime: 10_000 }));
    tab.state.setToken(jwt(0));
    await advance(30_000);
    expect(started()).toBe(1);
    // The next one falls due at about 51.5 s, in the warning: held back.
    await advance(25_000);
    expect(tab.idle.state()).toBe('warning');
    expect(started()).toBe(1);
    tab.idle.stayActive();
    await advance(50);
    expect(tab.idle.state()).toBe('active');
    expect(started()).toBe(2);
  });

  it("ends another tab by its message only when that tab's own deadline has come", async () => {
    const short = await open();
    const long = await open({ idle: 5 * IDLE });
    short.state.setToken('token-0');
    await advance(IDLE);
    expect(short.idle.state()).toBe('timedOut');
    // Its message delivered.
    await advance(100);
    expect(browser.posted).toContainEqual({ type: 'idleTimeout', at: START });
    // The longer tab goes by its own time (its server session may be gone: the short tab told it).
    expect(long.idle.state()).toBe('active');
  });

  it('removes its listeners and timers with the application', async () => {
    const tab = await open();
    tab.state.setToken('token-0');
    tab.click();
    tab.app.destroy();
    tabs = [];
    const posted = browser.posted.length;
    tab.click();
    await advance(2 * IDLE);
    expect(browser.posted.length).toBe(posted);
    expect(signOuts).toEqual([]);
    expect(timeouts).toEqual([]);
  });

  it('rejects wrong options in dev mode', () => {
    for (const options of [
      { idle: 999 },
      { idle: Infinity },
      { idle: 60_000, warnBefore: -1 },
      { idle: 60_000, name: '' },
    ]) {
      expect(() => withIdleTimeout(options as IdleTimeoutOptions)).toThrow(/withIdleTimeout/);
    }
    expect(() => withIdleTimeout({ idle: 60_000, onTimeout: 'x' as unknown as () => void })).toThrow(/onTimeout/);
  });
});
