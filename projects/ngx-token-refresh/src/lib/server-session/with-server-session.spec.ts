import { HttpClient, provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { APP_ID, EnvironmentInjector, TransferState, inject, makeStateKey } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import {
  injectTokenRefresh,
  provideTokenRefresh,
  tokenRefreshInterceptor,
  withNoCrossTabSync,
  withServerSession,
} from 'ngx-token-refresh';
import { AuthClient, provideAuth } from 'ngx-token-refresh/client';
import { createTestJwt } from 'ngx-token-refresh/testing';
import { firstValueFrom } from 'rxjs';

// The browser's half of withServerSession: it goes on with the token the server render ended with
// (the render's half is in with-server-session.server-render.spec.ts, over real HTTP).

/** The key the render writes (the page's transfer state, `<script id="ng-state">`). */
const RENDER_TOKEN = makeStateKey<string | null>('ngx-token-refresh:token');

/** The page as the server rendered it: its state script, which TransferState reads when first injected. */
function renderedPage(renderToken: string | null): void {
  document.getElementById('ng-state')?.remove();
  if (renderToken === null) return;
  const script = document.createElement('script');
  script.id = 'ng-state';
  script.type = 'application/json';
  script.textContent = JSON.stringify({ [RENDER_TOKEN]: renderToken });
  document.body.appendChild(script);
}

function setup(renderToken: string | null) {
  renderedPage(renderToken);
  TestBed.configureTestingModule({
    providers: [
      // An app's default (TestBed's is 'a'): the state script is `<script id="ng-state">`.
      { provide: APP_ID, useValue: 'ng' },
      provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
      provideHttpClientTesting(),
      provideTokenRefresh(
        {
          refreshApiCall: () => inject(HttpClient).post('/auth/refresh', null, { observe: 'response' }),
          extractToken: (response) => (response.body as { accessToken: string }).accessToken,
          attachToken: true,
        },
        withServerSession(),
      ),
    ],
  });
  return {
    http: TestBed.inject(HttpClient),
    httpTesting: TestBed.inject(HttpTestingController),
    state: () => injectTokenRefresh({ injector: TestBed.inject(EnvironmentInjector) }),
  };
}

describe('withServerSession in the browser', () => {
  afterEach(() => {
    TestBed.inject(HttpTestingController).verify();
    renderedPage(null);
  });

  it("goes on with the render's token: the first call carries it, and no refresh is made", async () => {
    const token = createTestJwt({ sub: 'ada', exp: Math.floor(Date.now() / 1000) + 300 });
    const { http, httpTesting, state } = setup(token);

    const answer = firstValueFrom(http.get('/api/me'));
    const call = httpTesting.expectOne('/api/me');
    call.flush({ name: 'ada' });

    expect(call.request.headers.get('Authorization')).toBe(`Bearer ${token}`);
    await expect(answer).resolves.toEqual({ name: 'ada' });
    expect(state().token()).toBe(token);
    httpTesting.expectNone('/auth/refresh');
  });

  it("takes it out of the page's state, so nothing else reads it there", () => {
    const token = createTestJwt({ sub: 'ada', exp: Math.floor(Date.now() / 1000) + 300 });
    const { state } = setup(token);

    expect(state().token()).toBe(token);
    expect(TestBed.inject(TransferState).hasKey(RENDER_TOKEN)).toBe(false);
  });

  it('leaves a token whose exp has passed (a page restored much later): the first 401 refreshes as usual', () => {
    const { state } = setup(createTestJwt({ sub: 'ada', exp: Math.floor(Date.now() / 1000) - 1 }));

    expect(state().token()).toBeNull();
  });

  it('takes an opaque token as it is, and nothing unusable', () => {
    expect(setup('opaque-token-123').state().token()).toBe('opaque-token-123');
    TestBed.resetTestingModule();
    expect(setup('Bearer x').state().token()).toBeNull();
    TestBed.resetTestingModule();
    expect(setup(null).state().token()).toBeNull();
  });
});

describe('withServerSession with provideAuth', () => {
  afterEach(() => renderedPage(null));

  it("makes the render's token the session's: signed in at start-up, restoreSession needs no refresh", async () => {
    const token = createTestJwt({ sub: 'ada', exp: Math.floor(Date.now() / 1000) + 300 });
    renderedPage(token);
    TestBed.configureTestingModule({
      providers: [
        { provide: APP_ID, useValue: 'ng' },
        provideHttpClient(withInterceptors([tokenRefreshInterceptor])),
        provideHttpClientTesting(),
        provideAuth({}, withNoCrossTabSync(), withServerSession()),
      ],
    });

    const auth = TestBed.inject(AuthClient);

    expect(auth.isAuthenticated()).toBe(true);
    await expect(firstValueFrom(auth.restoreSession())).resolves.toBe(true);
    TestBed.inject(HttpTestingController).verify();
  });

  it('refuses the body flow, whose refresh token a server render never sees, in every build', () => {
    expect(() =>
      provideAuth(
        { refreshFlow: 'body', refreshTokenStore: { get: () => null, set: () => undefined } },
        withServerSession(),
      ),
    ).toThrow(/withServerSession\(\) with refreshFlow: 'body'/);
  });
});

describe('withServerSession options', () => {
  it('refuses a refreshCookie that is no cookie name (dev mode)', () => {
    expect(() => withServerSession({ refreshCookie: 'refresh token' })).toThrow(
      /withServerSession: refreshCookie must be a cookie name, got refresh token/,
    );
    expect(() => withServerSession({ refreshCookie: '__Host-refreshToken' })).not.toThrow();
  });
});
