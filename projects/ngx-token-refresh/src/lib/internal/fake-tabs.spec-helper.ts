import {
  HttpBackend,
  HttpClient,
  HttpErrorResponse,
  type HttpEvent,
  type HttpRequest,
  HttpResponse,
  provideHttpClient,
  withInterceptors,
} from '@angular/common/http';
import {
  type ApplicationRef,
  type EnvironmentProviders,
  type Provider,
  inject,
  provideZonelessChangeDetection,
} from '@angular/core';
import { createApplication } from '@angular/platform-browser';
import { type TokenRefreshRef, injectTokenRefresh, tokenRefreshInterceptor } from 'ngx-token-refresh';
import { Observable, firstValueFrom } from 'rxjs';

// Shared by the cross-tab specs (not part of the library build: see tsconfig.lib.json). The real
// thing runs in Chromium (e2e/); this is the same browser API surface with the timing in the test's
// hands, so the races can be forced.

interface LockRequest {
  readonly name: string;
  readonly client: number;
  readonly mode: LockMode;
  readonly ifAvailable: boolean;
  readonly callback: (lock: Lock | null) => unknown;
  readonly settle: (outcome: { value?: unknown; error?: unknown }) => void;
}

/** One `BroadcastChannel` object of one tab. */
interface FakeChannel {
  readonly client: number;
  readonly name: string;
  readonly deliver: (data: unknown) => void;
}

/**
 * The Web Locks (exclusive and shared) and `BroadcastChannel` of one browser profile, shared by its tabs. Each tab is a client: closing it releases its locks and closes its
 * channels, as a browser does.
 */
export class FakeBrowser {
  /** Milliseconds a message takes to reach the other tabs; raise it to let the lock win the race. */
  messageDelayMs = 0;
  /** Messages posted, for assertions (their `type`s). */
  readonly posted: unknown[] = [];
  /** Tabs that get no messages now (frozen in the background): what is posted meanwhile is lost to them. */
  readonly muted = new Set<number>();
  /** Granted lock requests: one per exclusive name, any number for a shared one. */
  #held: LockRequest[] = [];
  #pending: LockRequest[] = [];
  readonly #channels = new Set<FakeChannel>();
  /** The client whose APIs `navigator.locks` and `new BroadcastChannel` give out now. */
  #current = 0;
  #originalLocks: PropertyDescriptor | undefined;
  #originalChannel: unknown;

  /** Puts this browser's APIs on `navigator` and `globalThis` (undone by {@link uninstall}). */
  install(): void {
    this.#originalLocks = Object.getOwnPropertyDescriptor(navigator, 'locks');
    this.#originalChannel = (globalThis as Record<string, unknown>)['BroadcastChannel'];
    Object.defineProperty(navigator, 'locks', { configurable: true, get: () => this.lockManager(this.#current) });
    const open = (name: string, deliver: (data: unknown) => void) => this.#openChannel(name, deliver);
    const post = (channel: FakeChannel, data: unknown) => this.#post(channel, data);
    const close = (channel: FakeChannel) => this.#channels.delete(channel);
    (globalThis as Record<string, unknown>)['BroadcastChannel'] = class {
      onmessage: ((event: { data: unknown }) => void) | null = null;
      readonly #channel: FakeChannel;
      constructor(name: string) {
        this.#channel = open(name, (data) => this.onmessage?.({ data }));
      }
      postMessage(data: unknown): void {
        post(this.#channel, data);
      }
      close(): void {
        close(this.#channel);
      }
    };
  }

  #openChannel(name: string, deliver: (data: unknown) => void): FakeChannel {
    const channel = { client: this.#current, name, deliver };
    this.#channels.add(channel);
    return channel;
  }

  #post(channel: FakeChannel, data: unknown): void {
    if (!this.#channels.has(channel)) throw new Error('InvalidStateError: the channel is closed');
    this.posted.push(data);
    const copy = JSON.stringify(data);
    for (const other of this.#channels) {
      if (other === channel || other.name !== channel.name || this.muted.has(other.client)) continue;
      setTimeout(() => this.#channels.has(other) && other.deliver(JSON.parse(copy)), this.messageDelayMs);
    }
  }

  uninstall(): void {
    if (this.#originalLocks) Object.defineProperty(navigator, 'locks', this.#originalLocks);
    else delete (navigator as { locks?: unknown }).locks;
    (globalThis as Record<string, unknown>)['BroadcastChannel'] = this.#originalChannel;
  }

  /** Runs `create` with `client`'s APIs in place (a tab picks them up while it starts). */
  async as<T>(client: number, create: () => Promise<T>): Promise<T> {
    this.#current = client;
    try {
      return await create();
    } finally {
      this.#current = 0;
    }
  }

  /** Posts `data` on channel `name` as a stranger would (another script of the origin). */
  postAsStranger(name: string, data: unknown): void {
    for (const channel of this.#channels) if (channel.name === name) setTimeout(() => channel.deliver(data), 0);
  }

  /** Holds lock `name` for a client that never lets go (a stuck tab), until the test ends. */
  holdForever(name: string, client = -1): void {
    void this.lockManager(client).request(name, () => new Promise(() => undefined));
  }

  /** Closes a tab as the browser does: its locks are released and its channels closed. */
  close(client: number): void {
    const released = this.#held.filter((request) => request.client === client);
    this.#held = this.#held.filter((request) => request.client !== client);
    this.#pending = this.#pending.filter((request) => request.client !== client);
    for (const { name } of released) this.#grant(name);
    for (const channel of this.#channels) if (channel.client === client) this.#channels.delete(channel);
  }

  /** Names of the locks held now (a shared one once per holder). */
  heldNames(): string[] {
    return this.#held.map(({ name }) => name);
  }

  /** Whether `request` could be granted now. */
  #available({ name, mode }: Pick<LockRequest, 'name' | 'mode'>): boolean {
    return this.#held.every((held) => held.name !== name || (mode === 'shared' && held.mode === 'shared'));
  }

  lockManager(client: number): LockManager {
    const request = (
      name: string,
      optionsOrCallback: LockOptions | ((lock: Lock | null) => unknown),
      maybeCallback?: (lock: Lock | null) => unknown,
    ): Promise<unknown> => {
      const options = typeof optionsOrCallback === 'function' ? {} : optionsOrCallback;
      const callback = typeof optionsOrCallback === 'function' ? optionsOrCallback : maybeCallback!;
      return new Promise((resolve, reject) => {
        const entry: LockRequest = {
          name,
          client,
          mode: options.mode ?? 'exclusive',
          ifAvailable: options.ifAvailable === true,
          callback,
          settle: ({ value, error }) => (error === undefined ? resolve(value) : reject(error)),
        };
        const signal = options.signal;
        if (signal?.aborted) return reject(new DOMException('aborted', 'AbortError'));
        signal?.addEventListener('abort', () => {
          if (!this.#pending.includes(entry)) return;
          this.#pending = this.#pending.filter((other) => other !== entry);
          reject(new DOMException('aborted', 'AbortError'));
        });
        if (entry.ifAvailable && !this.#available(entry)) {
          queueMicrotask(() => this.#run(entry, null));
          return;
        }
        this.#pending.push(entry);
        queueMicrotask(() => this.#grant(name));
      });
    };
    const describe = ({ name, mode, client: id }: LockRequest) => ({ name, mode, clientId: `${id}` });
    const query = async () => ({ held: this.#held.map(describe), pending: this.#pending.map(describe) });
    return { request, query } as unknown as LockManager;
  }

  /** Grants the requests for `name` that wait first in line, as far as they can be held together. */
  #grant(name: string): void {
    for (;;) {
      const next = this.#pending.find((request) => request.name === name);
      if (!next || !this.#available(next)) return;
      this.#pending = this.#pending.filter((request) => request !== next);
      this.#held.push(next);
      this.#run(next, { name, mode: next.mode } as Lock);
    }
  }

  #run(entry: LockRequest, lock: Lock | null): void {
    let result: unknown;
    try {
      result = entry.callback(lock);
    } catch (error) {
      result = Promise.reject(error);
    }
    void Promise.resolve(result).then(
      (value) => this.#release(entry, lock, { value }),
      (error: unknown) => this.#release(entry, lock, { error }),
    );
  }

  #release(entry: LockRequest, lock: Lock | null, outcome: { value?: unknown; error?: unknown }): void {
    if (lock && this.#held.includes(entry)) {
      this.#held = this.#held.filter((held) => held !== entry);
      this.#grant(entry.name);
    }
    entry.settle(outcome);
  }
}

/**
 * An API server for the tabs: it accepts the tokens it issued until they expire together
 * ({@link expireTokens}); `POST /auth/refresh` issues the next token after `refreshMs` (counting
 * calls, and how many ran at once).
 */
export class FakeServer {
  /** The newest token issued. */
  token = 'token-0';
  readonly #valid = new Set(['token-0']);
  refreshes = 0;
  running = 0;
  mostAtOnce = 0;
  refreshMs = 20;
  apiMs = 5;
  /** Answer refreshes with this status instead of a token (e.g. 401 or 503), when set. */
  refreshStatus: number | null = null;
  /** The token a refresh issues, by the refresh's number (a JWT for withProactiveRefresh). */
  tokenFor = (serial: number): string => `token-${serial}`;

  /** Every token issued so far stops working (the access tokens expired). */
  expireTokens(): void {
    this.#valid.clear();
  }

  readonly backend: HttpBackend = {
    handle: (request: HttpRequest<unknown>) =>
      new Observable<HttpEvent<unknown>>((subscriber) => {
        const isRefresh = request.url === '/auth/refresh';
        if (isRefresh) {
          this.refreshes++;
          this.mostAtOnce = Math.max(this.mostAtOnce, ++this.running);
        }
        const timer = setTimeout(
          () => {
            if (isRefresh) {
              this.running--;
              if (this.refreshStatus !== null) {
                subscriber.error(new HttpErrorResponse({ status: this.refreshStatus, url: request.url }));
                return;
              }
              this.token = this.tokenFor(this.refreshes);
              this.#valid.add(this.token);
              subscriber.next(new HttpResponse({ status: 200, body: { accessToken: this.token }, url: request.url }));
            } else if (this.#valid.has(request.headers.get('Authorization')?.replace(/^Bearer /, '') ?? '')) {
              subscriber.next(new HttpResponse({ status: 200, body: request.url, url: request.url }));
            } else {
              subscriber.error(new HttpErrorResponse({ status: 401, url: request.url }));
              return;
            }
            subscriber.complete();
          },
          isRefresh ? this.refreshMs : this.apiMs,
        );
        return () => {
          clearTimeout(timer);
          if (isRefresh && this.running > 0) this.running--;
        };
      }),
  };
}

/** One tab: an application of its own, with the interceptor in front of the fake server. */
export interface FakeTab {
  readonly app: ApplicationRef;
  readonly state: TokenRefreshRef;
  readonly http: HttpClient;
  /** What the interceptor emitted in this tab, by type. */
  readonly events: string[];
  get(url: string): Promise<unknown>;
}

/** Opens tab `client` of `browser` with `providers` (the interceptor's setup), against `server`. */
export async function openTab(
  browser: FakeBrowser,
  client: number,
  server: FakeServer,
  providers: (Provider | EnvironmentProviders)[],
): Promise<FakeTab> {
  const app = await browser.as(client, async () => {
    const created = await createApplication({
      providers: [
        provideZonelessChangeDetection(),
        provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
        { provide: HttpBackend, useValue: server.backend },
        ...providers,
      ],
    });
    // The gate (and the feature) start now, while this client's APIs are in place.
    injectTokenRefresh({ injector: created.injector });
    return created;
  });
  const state = injectTokenRefresh({ injector: app.injector });
  const events: string[] = [];
  state.events.subscribe((event) =>
    events.push(event.type === 'tokenReceived' ? `tokenReceived(${event.waiting ? 'waiting' : 'idle'})` : event.type),
  );
  const http = app.injector.get(HttpClient);
  return { app, state, http, events, get: (url) => firstValueFrom(http.get(url)) };
}

/** The refresh options the tabs use: `POST /auth/refresh`, token from `{ accessToken }`. */
export const FAKE_REFRESH = {
  attachToken: true,
  refreshApiCall: () => inject(HttpClient).post('/auth/refresh', null, { observe: 'response' }),
  extractToken: (response: HttpResponse<unknown>) => (response.body as { accessToken: string }).accessToken,
};

/** Resolves after `ms` of real time. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
