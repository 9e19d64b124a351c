import { isPlatformBrowser } from '@angular/common';
import { DestroyRef, PLATFORM_ID, inject } from '@angular/core';
import { Observable, type Subscriber } from 'rxjs';

import { injectCallbackRunner } from '../internal/inject-callback-runner';
import { isUsableToken } from '../internal/is-usable-token';
import type { RefreshResult } from './refresh-call';
import { type CoordinatedGate, REFRESH_ONLY_UNDER_LOCK, type RefreshCoordinator } from './refresh-coordinator';
import type { ResolvedTokenRefreshOptions } from './resolve-token-refresh-options';
import { TokenRefreshError } from './token-refresh-error';

/** The settings of {@link CrossTabSync}, as `withCrossTabSync` resolved them. */
export interface CrossTabSyncSettings {
  readonly name: string;
  readonly shareToken: boolean;
  readonly onSignedOutElsewhere?: () => void;
  /** Never refresh without the lock (see `REFRESH_ONLY_UNDER_LOCK`). */
  readonly onlyUnderLock?: boolean;
}

/** What tabs tell each other on the channel. A token comes with the version it is (see `#version`). */
type CrossTabMessage =
  | { readonly type: 'token'; readonly token: string; readonly version: number; readonly expiresAt: number | null }
  | { readonly type: 'signedOut' };

/**
 * How long a tab that got the lock waits for the token of a refresh it knows another tab has just
 * finished (the message is on its way) before it refreshes itself.
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
 * - Tokens are versioned, so an old token never replaces a newer one. A message and the lock travel
 *   by different routes, so the lock can reach the next tab before the message does. To know that
 *   without a message, the tab that refreshed holds a second lock named after the new version
 *   (`<name>:v:<n>`) before it lets go of the refresh lock; the next tab reads the versions held
 *   (`navigator.locks.query()`), and when one is newer than its own, waits for that token instead
 *   of refreshing again. Only names are shared that way, never a token.
 * - A sign-out (the application cleared its token) is posted too, and signs every tab out.
 *
 * A tab closed in the middle of a refresh releases its locks (the browser does that), so the next
 * tab goes on. A tab that cannot get the lock within `refreshTimeout` refreshes without it: the
 * server's overlap window keeps the session then, and nothing hangs. Where the refresh token is one
 * copy shared by the tabs (`REFRESH_ONLY_UNDER_LOCK`), it fails its refresh with `Timeout` instead
 * (the session is kept, and the next 401 tries again).
 */
export class CrossTabSync implements RefreshCoordinator {
  readonly #settings: CrossTabSyncSettings;
  readonly #gate: CoordinatedGate;
  readonly #refreshTimeout: number;
  readonly #locks: LockManager;
  readonly #channel: BroadcastChannel;
  readonly #versionPrefix: string;
  /** Runs the application's callbacks: a throw is reported, never rethrown. */
  readonly #notify = injectCallbackRunner();
  /** The version of this tab's token: the newest one it refreshed, received, or saw held at start. */
  #version = 0;
  /** Set when this tab's versions are known (the ones held when it started). */
  readonly #ready: Promise<void>;
  /** While this tab's refresh call runs: a token arriving then is older than the one it will bring. */
  #calling = false;
  /** Lets go of the version lock this tab holds, if any. */
  #releaseVersion: (() => void) | null = null;

  /**
   * The coordinator of one gate, or `null` where it cannot work: on the server (a Node process has a
   * `BroadcastChannel`, shared by every render in it: tokens must never travel there), or in a
   * browser without Web Locks or `BroadcastChannel` (an old one, or an insecure context). The tab
   * then behaves as without the feature. Needs an injection context.
   */
  static create(
    settings: CrossTabSyncSettings,
    gate: CoordinatedGate,
    options: ResolvedTokenRefreshOptions,
  ): CrossTabSync | null {
    if (!isPlatformBrowser(inject(PLATFORM_ID))) return null;
    const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
    if (typeof locks?.request !== 'function' || typeof BroadcastChannel !== 'function') return null;
    const onlyUnderLock = inject(REFRESH_ONLY_UNDER_LOCK, { optional: true }) ?? false;
    return new CrossTabSync({ ...settings, onlyUnderLock }, gate, options.refreshTimeout, locks);
  }

  private constructor(
    settings: CrossTabSyncSettings,
    gate: CoordinatedGate,
    refreshTimeout: number,
    locks: LockManager,
  ) {
    this.#settings = settings;
    this.#gate = gate;
    this.#refreshTimeout = refreshTimeout;
    this.#locks = locks;
    this.#versionPrefix = `${settings.name}:v:`;
    this.#channel = new BroadcastChannel(settings.name);
    this.#channel.onmessage = (event: MessageEvent<unknown>) => this.#receive(event.data);
    // A new tab starts at the newest version held, so it does not wait for a message sent before it
    // existed.
    this.#ready = this.#latestVersion().then((latest) => void (this.#version = Math.max(this.#version, latest)));
    inject(DestroyRef).onDestroy(() => {
      this.#channel.close();
      this.#releaseVersion?.();
    });
  }

  coordinate(refresh: Observable<RefreshResult>): Observable<RefreshResult> {
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

  announce(token: string | null, expiresAt: number | null): void {
    if (token === null) this.#post({ type: 'signedOut' });
    // Shared as a refreshed token is, version lock included: a tab opened later starts from that
    // version, so its own first token counts as newer here.
    else if (this.#settings.shareToken) void this.#share(token, expiresAt);
  }

  /** This tab's turn, holding the lock: refresh, unless another tab's token is about to arrive. */
  async #turn(refresh: Observable<RefreshResult>, subscriber: Subscriber<RefreshResult>): Promise<void> {
    if (subscriber.closed) return;
    if (this.#settings.shareToken) {
      await this.#ready;
      if ((await this.#latestVersion()) > this.#version) {
        // Another tab refreshed while this one waited, and its message is not here yet. When it
        // arrives, the gate takes the token and unsubscribes, which ends this wait.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, MESSAGE_GRACE_MS);
          subscriber.add(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    }
    await this.#refresh(refresh, subscriber);
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
    const version = Math.max(this.#version, await this.#latestVersion()) + 1;
    this.#version = version;
    // Tabs share one clock, so the time of expiry travels as it is.
    this.#post({ type: 'token', token, version, expiresAt });
    const previous = this.#releaseVersion;
    await new Promise<void>((granted) => {
      this.#locks
        // ifAvailable: a name somebody else holds (a version counted twice) must never block.
        .request(`${this.#versionPrefix}${version}`, { ifAvailable: true }, (lock) => {
          granted();
          return lock ? new Promise<void>((release) => (this.#releaseVersion = release)) : undefined;
        })
        .catch(() => granted());
    });
    previous?.();
  }

  /** The newest version a tab of this origin holds the lock of; 0 when none. */
  async #latestVersion(): Promise<number> {
    let latest = 0;
    try {
      const { held = [] } = await this.#locks.query();
      for (const { name } of held) {
        if (!name?.startsWith(this.#versionPrefix)) continue;
        const version = Number(name.slice(this.#versionPrefix.length));
        if (Number.isSafeInteger(version) && version > latest) latest = version;
      }
    } catch {
      // No answer: as if none were held, so this tab refreshes for itself, as without the feature.
    }
    return latest;
  }

  #receive(data: unknown): void {
    const message = data as Partial<{ type: unknown; token: unknown; version: unknown; expiresAt: unknown }> | null;
    if (typeof message !== 'object' || message === null) return;
    if (message.type === 'signedOut') {
      if (this.#gate.signOut()) this.#notify(this.#settings.onSignedOutElsewhere);
      return;
    }
    const { token, version, expiresAt } = message;
    // Anything else on the channel (another version of this library, a stranger's message) is ignored.
    if (
      message.type !== 'token' ||
      !this.#settings.shareToken ||
      !isUsableToken(token) ||
      typeof version !== 'number' ||
      !Number.isSafeInteger(version) ||
      version <= this.#version
    ) {
      return;
    }
    this.#version = version;
    // While this tab's own refresh call runs, the token it brings is newer than this one.
    if (!this.#calling) {
      this.#gate.receive(token, typeof expiresAt === 'number' && Number.isFinite(expiresAt) ? expiresAt : null);
    }
  }

  #post(message: CrossTabMessage): void {
    try {
      this.#channel.postMessage(message);
    } catch {
      // A closed channel (the application is being destroyed): nobody to tell.
    }
  }
}
