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
import { type ApplicationRef, DOCUMENT, provideZonelessChangeDetection } from '@angular/core';
import { createApplication } from '@angular/platform-browser';
import {
  type ApiError,
  type BffSessionRef,
  bffSessionInterceptor,
  injectBffSession,
  provideBffSession,
} from 'ngx-token-refresh/client';
import { Observable, firstValueFrom } from 'rxjs';

import { FakeBrowser, pause } from '../../../src/lib/internal/fake-tabs.spec-helper';

// provideBffSession in several tabs of one browser: BroadcastChannel from FakeBrowser (tabs as
// applications in one page), and one BFF that all the tabs share, as they share its cookie.

describe('provideBffSession across tabs', () => {
  let browser: FakeBrowser;
  let bff: FakeBff;
  let tabs: Tab[];

  beforeEach(() => {
    browser = new FakeBrowser();
    browser.install();
    bff = new FakeBff();
    tabs = [];
  });

  afterEach(() => {
    for (const tab of tabs) tab.app.destroy();
    browser.uninstall();
  });

  /** Opens tab `client`, signed in (or not) as the BFF says at that moment. */
  const open = async (client: number): Promise<Tab> => {
    const tab = await openTab(browser, client, bff);
    tabs.push(tab);
    return tab;
  };

  it('one tab meeting the end of the session tells the others once: each is signed out and reports it once', async () => {
    const [first, second, third] = [await open(1), await open(2), await open(3)];
    expect(tabs.map((tab) => tab.session.status())).toEqual(['signedIn', 'signedIn', 'signedIn']);

    bff.end();
    await Promise.allSettled([1, 2, 3, 4, 5].map((id) => first!.get(`/api/items/${id}`)));
    await pause(10);

    expect(browser.posted).toEqual([
      { type: 'ended', session: JSON.stringify(['ada', bff.expiresAt]), code: 'SessionEnded' },
    ]);
    expect(tabs.map((tab) => tab.session.status())).toEqual(['signedOut', 'signedOut', 'signedOut']);
    expect(tabs.map((tab) => tab.session.user())).toEqual([null, null, null]);
    expect(tabs.map((tab) => tab.expired.map((error) => error.code))).toEqual([
      ['SessionEnded'],
      ['SessionEnded'],
      ['SessionEnded'],
    ]);

    // The others find it ended at their own next calls: nothing more is posted or reported.
    await Promise.allSettled([second!.get('/api/a'), third!.get('/api/b')]);
    await pause(10);
    expect(browser.posted).toHaveLength(1);
    expect(tabs.map((tab) => tab.expired.length)).toEqual([1, 1, 1]);
  });

  it('a sign-out in one tab signs the others out (SignedOutElsewhere); the tab that signed out reports nothing', async () => {
    const [first] = [await open(1), await open(2), await open(3)];

    await first!.session.signOut();
    await pause(10);

    expect(first!.navigations).toEqual(['https://id.example/session/end']);
    expect(tabs.map((tab) => tab.session.status())).toEqual(['signedOut', 'signedOut', 'signedOut']);
    expect(tabs.map((tab) => tab.expired.map((error) => error.code))).toEqual([
      [],
      ['SignedOutElsewhere'],
      ['SignedOutElsewhere'],
    ]);
  });

  it('names the session by its user alone when the BFF gives no expiresAt', async () => {
    bff.sendExpiresAt = false;
    const [first, second] = [await open(1), await open(2)];

    bff.end();
    await first!.get('/api/x').catch(() => undefined);
    await pause(10);

    expect(browser.posted).toEqual([{ type: 'ended', session: JSON.stringify(['ada', null]), code: 'SessionEnded' }]);
    expect(second!.session.status()).toBe('signedOut');
    expect(second!.expired.map((error) => error.code)).toEqual(['SessionEnded']);
  });

  it('a tab signed in again meanwhile ignores the end of the earlier session', async () => {
    const [first, second] = [await open(1), await open(2)];
    bff.end();
    // The first tab signs in again (the BFF sets a new cookie, shared by the browser's tabs)...
    bff.signIn();
    await first!.session.reload();
    expect(first!.session.status()).toBe('signedIn');
    // ...while the second tab's call went out with the earlier session's cookie, and met its end.
    bff.answerNextWith = 'SessionEnded';
    await second!.get('/api/x').catch(() => undefined);
    await pause(10);

    expect(second!.session.status()).toBe('signedOut');
    expect(browser.posted).toHaveLength(1);
    expect(first!.session.status()).toBe('signedIn');
    expect(first!.expired).toEqual([]);
  });

  it('a visitor who never signed in tells no tab anything', async () => {
    bff.end();
    await open(1);
    const second = await open(2);

    await second.get('/api/x').catch(() => undefined);
    await pause(10);

    expect(tabs.map((tab) => tab.session.status())).toEqual(['signedOut', 'signedOut']);
    expect(browser.posted).toEqual([]);
    expect(tabs.map((tab) => tab.expired)).toEqual([[], []]);
  });

  it('ignores what is not its message: another type, another code, another session or none', async () => {
    const [first] = [await open(1)];
    for (const message of [
      { type: 'signedOut' },
      { type: 'ended', session: JSON.stringify(['ada', bff.expiresAt]), code: 'Gone' },
      { type: 'ended', session: JSON.stringify(['ada', bff.expiresAt - 1]), code: 'SessionEnded' },
      { type: 'ended', session: JSON.stringify(['grace', bff.expiresAt]), code: 'SessionEnded' },
      { type: 'ended', session: null, code: 'SessionEnded' },
      { type: 'ended', code: 'SessionEnded' },
      'ended',
      null,
    ]) {
      browser.postAsStranger('ngx-token-refresh-bff', message);
    }
    await pause(10);

    expect(first!.session.status()).toBe('signedIn');
    expect(first!.expired).toEqual([]);
  });
});

/**
 * The BFF as the tabs see it: a session (or none) behind the browser's one cookie. GET /bff/session,
 * POST /bff/logout and GET /api/** answer as the route table of `ngx-token-refresh/bff` says.
 */
class FakeBff {
  signedIn = true;
  expiresAt = 1_900_000_000_000;
  sendExpiresAt = true;
  /** The next call's 401 code when signed out: the first after an end is SessionEnded, then NoSession. */
  answerNextWith: 'SessionEnded' | 'NoSession' = 'NoSession';

  end(): void {
    this.signedIn = false;
    this.answerNextWith = 'SessionEnded';
  }

  signIn(): void {
    this.signedIn = true;
    this.answerNextWith = 'NoSession';
    this.expiresAt += 60_000;
  }

  readonly backend: HttpBackend = {
    handle: (request: HttpRequest<unknown>) =>
      new Observable<HttpEvent<unknown>>((subscriber) => {
        const url = request.url;
        const reply = (body: unknown) => {
          subscriber.next(new HttpResponse({ status: 200, body, url }));
          subscriber.complete();
        };
        // Each answer after a turn of the event loop, as over the network.
        const timer = setTimeout(() => {
          if (request.headers.get('x-csrf') !== '1') {
            subscriber.error(new HttpErrorResponse({ status: 403, url, error: { error: { code: 'CsrfRefused' } } }));
          } else if (url === '/bff/logout' && request.method === 'POST') {
            this.signedIn = false;
            this.answerNextWith = 'NoSession';
            reply({ endSessionUrl: 'https://id.example/session/end' });
          } else if (this.signedIn && this.answerNextWith === 'NoSession') {
            const session = { user: { sub: 'ada' }, ...(this.sendExpiresAt ? { expiresAt: this.expiresAt } : {}) };
            reply(url === '/bff/session' ? session : { url });
          } else {
            const code = this.answerNextWith;
            this.answerNextWith = 'NoSession';
            subscriber.error(
              new HttpErrorResponse({ status: 401, url, error: { error: { code, message: 'Sign in again.' } } }),
            );
          }
        }, 1);
        return () => clearTimeout(timer);
      }),
  };
}

interface Tab {
  readonly app: ApplicationRef;
  readonly session: BffSessionRef;
  /** What `onSessionExpired` was given in this tab. */
  readonly expired: ApiError[];
  /** Where this tab navigated to. */
  readonly navigations: string[];
  get(url: string): Promise<unknown>;
}

/** Opens tab `client` of `browser`, an application of its own against `bff`, once its session is known. */
async function openTab(browser: FakeBrowser, client: number, bff: FakeBff): Promise<Tab> {
  const expired: ApiError[] = [];
  const navigations: string[] = [];
  const app = await browser.as(client, () =>
    createApplication({
      providers: [
        provideZonelessChangeDetection(),
        provideHttpClient(withInterceptors([bffSessionInterceptor])),
        { provide: HttpBackend, useValue: bff.backend },
        provideBffSession({ onSessionExpired: (error) => expired.push(error) }),
        { provide: DOCUMENT, useValue: pageRecording(navigations) },
      ],
    }),
  );
  const session = injectBffSession({ injector: app.injector });
  while (session.status() === 'unknown') await pause(1);
  const http = app.injector.get(HttpClient);
  return { app, session, expired, navigations, get: (url) => firstValueFrom(http.get(url)) };
}

/** jsdom's document, with a location whose navigations are recorded instead of made. */
function pageRecording(navigations: string[]): Document {
  const location = {
    href: 'http://localhost/',
    pathname: '/',
    search: '',
    hash: '',
    assign: (url: string) => navigations.push(url),
  };
  return new Proxy(document, {
    get: (target, key) => {
      if (key === 'location') return location;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
