import { isPlatformBrowser } from '@angular/common';
import { DestroyRef, PLATFORM_ID, inject } from '@angular/core';
import { Observable, type Subscriber } from 'rxjs';

import { injectCallbackRunner } from '../internal/inject-callback-runner';
import { isUsableToken } from '../internal/is-usable-token';
import { TOKEN_REFRESH_PRESET } from '../internal/provide-token-refresh-preset';
import type { GateHost, GatePlugin } from '../core/gate-plugin';
import type { RefreshResult } from '../core/refresh-call';
import { TokenRefreshError } from '../core/token-refresh-error';

/** The settings of {@link CrossTabSync}, as `withCrossTabSync` resolved them. */
export interface CrossTabSyncSettings {
  readonly name: string;
  readonly shareToken: boolean;
  readonly onSignedOutElsewhere?: () => void;
  /** Never refresh without the lock (see `TokenRefreshPreset.refreshOnlyUnderLock`). */
  readonly onlyUnderLock?: boolean;
}

/**
 * What tabs tell each other on the channel. A token comes with the version it is (see `#version`). A
 * tab without a token `ask`s for one before it refreshes; the tabs that hold a version answer with
 * their token (`current`, addressed to the asker), or with `null` when they have none to give.
 */
type CrossTabMessage =
  | { readonly type: 'token'; readonly token: string; readonly version: number; readonly expiresAt: number | null }
  | { readonly type: 'signedOut' }
  | { readonly type: 'ask'; readonly id: string }
  | {
      readonly type: 'current';
      readonly to: string;
      readonly token: string | null;
      readonly version: number;
      readonly expiresAt: number | null;
    };

/**
 * How long a tab that got the lock waits for a token it knows is on its way (another tab has just
 * refreshed, or holds a token this tab asked for) before it refreshes itself. Only a tab that cannot
 * answer (frozen in the background) makes anyone wait that long; a live one answers in milliseconds.
 */
const MESSAGE_GRACE_MS = 1000;

/**
 * One refresh at a time across the tabs of an origin, and the token shared between them:
 *
 * - A refresh runs under the Web Lock `<name>`, so tabs whose tokens expire together refresh one
 *   after the other, never at once.
 * - The tab that refreshed posts the token on the `BroadcastChannel` `<name>`. A tab waiting for the
 *   lock takes it and ends its own refresh without a call; an idle tab takes it too, so its next
 *   requests do not fail first. With `shareToken: false` no token is posted: refreshes are only
 *   serialised, and each tab refreshes for itself (the refresh cookie the previous one rotated).
 * - Tokens are versioned, so an old token never replaces a newer one. A version is at least the time
 *   it was made (ms since the epoch), and above every version the tab knows: so it orders tokens
 *   across page loads too. A page that signs in again after a redirect, or a reloaded tab, starts with
 *   no memory of the versions the other tabs saw, and a plain counter would start below them (the
 *   other tabs would drop its token as an old one).
 * - Every tab holding a token holds a shared lock named after its version (`<name>:v:<n>`), so the
 *   versions alive are known without a message (`navigator.locks.query()`; only names are shared that
 *   way, never a token). The message and the lock travel by different routes, and the refresh lock
 *   can reach the next tab before the message does: the tab that refreshed holds the new version
 *   before it lets go of the refresh lock, and the next tab, seeing a version newer than its own,
 *   waits for that token instead of refreshing again.
 * - A tab without a token (a new tab, a reload, a page back from a sign-in) asks the tabs holding a
 *   version for their token before it refreshes, and takes it: opening a tab costs no refresh while
 *   another tab holds a live token. With none held, it refreshes at once (nobody to wait for).
 * - A sign-out (the application cleared its token) is posted too, and signs every tab out.
 *
 * A tab closed in the middle of a refresh releases its locks (the browser does that), so the next
 * tab goes on. A tab that cannot get the lock within `refreshTimeout` refreshes without it: the
 * server's overlap window keeps the session then, and nothing hangs. Where the refresh token is one
 * copy shared by the tabs (`TokenRefreshPreset.refreshOnlyUnderLock`), it fails its refresh with
 * `Timeout` instead (the session is kept, and the next 401 tries again).
 */
export class CrossTabSync implements GatePlugin {
  readonly #settings: CrossTabSyncSettings;
  readonly #gate: GateHost;
  readonly #refreshTimeout: number;
  readonly #locks: LockManager;
  readonly #channel: BroadcastChannel;
  readonly #versionPrefix: string;
  /** Runs the application's callbacks: a throw is reported, never rethrown. */
  readonly #notify = injectCallbackRunner();
  /** The version of this tab's token: the newest one it made, received, or saw held at start. */
  #version = 0;
  /** Set when this tab's versions are known (the ones held when it started). */
  readonly #ready: Promise<void>;
  /** While this tab's refresh call runs: a token arriving then is older than the one it will bring. */
  #calling = false;
  /** Lets go of the version lock this tab holds, if any. */
  #releaseVersion: (() => void) | null = null;
  /** Counts the version locks asked for: only the latest one asked for is kept. */
  #holds = 0;
  /** The question this tab has on the channel while it waits for the other tabs' token, if any. */
  #asking: { readonly id: string; readonly answered: () => void } | null = null;

  /**
   * The coordinator of one gate, or `null` where it cannot work: on the server (a Node process has a
   * `BroadcastChannel`, shared by every render in it: tokens must never travel there), or in a
   * browser without Web Locks or `BroadcastChannel` (an old one, or an insecure context). The tab
   * then behaves as without the feature. Needs an injection context.
   */
  static create(settings: CrossTabSyncSettings, gate: GateHost): CrossTabSync | null {
    if (!isPlatformBrowser(inject(PLATFORM_ID))) return null;
    const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
    if (typeof locks?.request !== 'function' || typeof BroadcastChannel !== 'function') return null;
    const onlyUnderLock = inject(TOKEN_REFRESH_PRESET, { optional: true })?.refreshOnlyUnderLock ?? false;
    return new CrossTabSync({ ...settings, onlyUnderLock }, gate, gate.options.refreshTimeout, locks);
  }

  private constructor(settings: CrossTabSyncSettings, gate: GateHost, refreshTimeout: number, locks: LockManager) {
    this.#settings = settings;
    this.#gate = gate;
    this.#refreshTimeout = refreshTimeout;
    this.#locks = locks;
    this.#versionPrefix = `${settings.name}:v:`;
    this.#channel = new BroadcastChannel(settings.name);
    this.#channel.onmessage = (event: MessageEvent<unknown>) => this.#receive(event.data);
    // A new tab starts at the newest version held, so it does not wait for a message sent before it
    // existed.
    this.#ready = this.#versionsHeld().then(({ latest }) => void (this.#version = Math.max(this.#version, latest)));
    inject(DestroyRef).onDestroy(() => {
      this.#channel.close();
      this.#hold(null);
    });
  }

  /** Runs the refresh call when it is this tab's turn, unless another tab's token comes first. */
  refresh(refresh: Observable<RefreshResult>): Observable<RefreshResult> {
    return new Observable<RefreshResult>((subscriber) => {
      const abort = new AbortController();
      let timedOut = false;
      const timer =
        this.#refreshTimeout === Infinity
          ? undefined
          : setTimeout(() => {
              timedOut = true;
              abort.abort();
            }, this.#refreshTimeout);
      this.#locks
        .request(this.#settings.name, { signal: abort.signal }, async () => {
          clearTimeout(timer);
          await this.#turn(refresh, subscriber);
        })
        .catch(() => {
          // Aborted: the gate no longer needs this refresh (it unsubscribed), or the lock stayed
          // taken for refreshTimeout, and then this tab refreshes without it (or, when that could
          // send a refresh token another tab is sending, gives up for now).
          if (!timedOut || subscriber.closed) return;
          if (!this.#settings.onlyUnderLock) {
            void this.#refresh(refresh, subscriber);
            return;
          }
          subscriber.next({
            ok: false,
            error: new TokenRefreshError(
              'Timeout',
              typeof ngDevMode !== 'undefined' &&
                ngDevMode &&
                `another tab held the refresh lock for longer than ${this.#refreshTimeout} ms`,
            ),
          });
          subscriber.complete();
        });
      return () => {
        clearTimeout(timer);
        abort.abort();
      };
    });
  }

  /** The app set a token (a sign-in) or cleared it (a sign-out): the other tabs are told. */
  changed(_fresh: boolean, signIn: boolean): void {
    if (!signIn) return;
    const token = this.#gate.token();
    if (token === null) {
      // Nothing left to give a tab that asks.
      this.#hold(null);
      this.#post({ type: 'signedOut' });
    }
    // Shared as a refreshed token is, version lock included.
    else if (this.#settings.shareToken) void this.#share(token, this.#gate.expiresAt());
  }

  /** This tab's turn, holding the lock: refresh, unless another tab's token is about to arrive. */
  async #turn(refresh: Observable<RefreshResult>, subscriber: Subscriber<RefreshResult>): Promise<void> {
    if (subscriber.closed) return;
    if (this.#settings.shareToken) {
      await this.#ready;
      const { latest, holders } = await this.#versionsHeld();
      const ask = holders > 0 && this.#gate.token() === null;
      if (ask || latest > this.#version) {
        // This tab has no token and other tabs hold one: ask them. Or another tab refreshed while
        // this one waited, and its message is not here yet. When a token arrives, the gate takes it
        // and unsubscribes, which ends this wait.
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            this.#asking = null;
            resolve();
          };
          const timer = setTimeout(done, MESSAGE_GRACE_MS);
          subscriber.add(done);
          if (ask) this.#ask(holders, done);
        });
      }
    }
    await this.#refresh(refresh, subscriber);
  }

  /**
   * Asks the tabs holding a version for their token; `giveUp` when each of the `holders` answered
   * without one (their tokens were cleared or have expired).
   */
  #ask(holders: number, giveUp: () => void): void {
    let unanswered = holders;
    const id = Math.random().toString(36).slice(2);
    this.#asking = {
      id,
      answered: () => {
        if (--unanswered <= 0) giveUp();
      },
    };
    this.#post({ type: 'ask', id });
  }

  /** Runs the refresh call and hands its result on, after sharing a new token with the other tabs. */
  async #refresh(refresh: Observable<RefreshResult>, subscriber: Subscriber<RefreshResult>): Promise<void> {
    if (subscriber.closed) return;
    this.#calling = true;
    const result = await new Promise<RefreshResult | null>((resolve) => {
      const call = refresh.subscribe(resolve);
      subscriber.add(() => {
        call.unsubscribe();
        resolve(null);
      });
    });
    this.#calling = false;
    if (result === null) return;
    if (result.ok && this.#settings.shareToken) await this.#share(result.token, result.expiresAt);
    subscriber.next(result);
    subscriber.complete();
  }

  /** Posts a new token (refreshed, or the app's), then holds the lock of its version (see the class comment). */
  async #share(token: string, expiresAt: number | null): Promise<void> {
    const { latest } = await this.#versionsHeld();
    const version = Math.max(Date.now(), this.#version + 1, latest + 1);
    this.#version = version;
    // Tabs share one clock, so the time of expiry travels as it is.
    this.#post({ type: 'token', token, version, expiresAt });
    await this.#hold(version);
  }

  /**
   * Holds the shared lock of `version` (none for `null`) in place of the one held before; resolves
   * once it is held. Shared: every tab with that token holds it, and it stays held while one does.
   */
  #hold(version: number | null): Promise<void> {
    const serial = ++this.#holds;
    const previous = this.#releaseVersion;
    this.#releaseVersion = null;
    previous?.();
    if (version === null) return Promise.resolve();
    return new Promise<void>((granted) => {
      this.#locks
        // ifAvailable: never wait for a version lock, whatever another script of the origin does.
        .request(`${this.#versionPrefix}${version}`, { mode: 'shared', ifAvailable: true }, (lock) => {
          granted();
          // A newer version (or none) was asked for meanwhile: let this one go at once.
          if (!lock || serial !== this.#holds) return undefined;
          return new Promise<void>((release) => (this.#releaseVersion = release));
        })
        .catch(() => granted());
    });
  }

  /** The newest version a tab of this origin holds the lock of (0 when none), and how many tabs hold one. */
  async #versionsHeld(): Promise<{ latest: number; holders: number }> {
    let latest = 0;
    let holders = 0;
    try {
      const { held = [] } = await this.#locks.query();
      for (const { name } of held) {
        if (!name?.startsWith(this.#versionPrefix)) continue;
        const version = Number(name.slice(this.#versionPrefix.length));
        if (!Number.isSafeInteger(version)) continue;
        holders++;
        if (version > latest) latest = version;
      }
    } catch {
      // No answer: as if none were held, so this tab refreshes for itself, as without the feature.
    }
    // This tab's own lock is no other tab's.
    if (this.#releaseVersion) holders--;
    return { latest, holders };
  }

  #receive(data: unknown): void {
    const message = data as Partial<{
      type: unknown;
      token: unknown;
      version: unknown;
      expiresAt: unknown;
      id: unknown;
      to: unknown;
    }> | null;
    if (typeof message !== 'object' || message === null) return;
    if (message.type === 'signedOut') {
      this.#hold(null);
      // As a logout here, unless there is nothing to end.
      const gate = this.#gate;
      if (gate.token() === null && !gate.ref.isRefreshing()) return;
      gate.ref.setToken(null, { restored: true });
      gate.emit({ type: 'signedOutElsewhere' });
      this.#notify(this.#settings.onSignedOutElsewhere);
      return;
    }
    if (!this.#settings.shareToken) return;
    if (message.type === 'ask') {
      if (typeof message.id === 'string') void this.#answer(message.id);
      return;
    }
    const asking = this.#asking;
    const answer = message.type === 'current' && asking !== null && message.to === asking.id;
    const { token, version, expiresAt } = message;
    // Anything else on the channel (another version of this library, a stranger's message, an answer
    // to another tab) is ignored. An answer may repeat the version this tab knows: the one held.
    if (
      !(message.type === 'token' || answer) ||
      !isUsableToken(token) ||
      typeof version !== 'number' ||
      !Number.isSafeInteger(version) ||
      (answer ? version < this.#version : version <= this.#version)
    ) {
      // An answer without a token this tab can take: one fewer to wait for.
      if (answer) asking.answered();
      return;
    }
    this.#version = version;
    void this.#hold(version);
    // While this tab's own refresh call runs, the token it brings is newer than this one.
    if (!this.#calling) {
      this.#gate.receive(token, typeof expiresAt === 'number' && Number.isFinite(expiresAt) ? expiresAt : null);
    }
  }

  /**
   * Another tab has no token and asks for one: this tab gives its own, unless it is known to have
   * expired. A tab holding no version stays silent (the asker does not count on it).
   */
  async #answer(to: string): Promise<void> {
    const usable = () => {
      const expiresAt = this.#gate.expiresAt();
      return expiresAt !== null && expiresAt <= Date.now() ? null : this.#gate.token();
    };
    const token = usable();
    if (token === null && !this.#releaseVersion) return;
    if (token !== null) await this.#gate.share(token);
    // Read again: the token may have changed meanwhile (a refresh, a sign-out).
    this.#post({ type: 'current', to, token: usable(), version: this.#version, expiresAt: this.#gate.expiresAt() });
  }

  #post(message: CrossTabMessage): void {
    try {
      this.#channel.postMessage(message);
    } catch {
      // A closed channel (the application is being destroyed): nobody to tell.
    }
  }
}
