import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { type ComponentFixture, TestBed } from '@angular/core/testing';

import { BffApp } from './bff-app';
import { bffAppConfig } from './bff-app.config';

// The showcase's `bff` build as it runs (its real providers: provideBffSession, bffSessionInterceptor),
// HttpTestingController standing in for the BFF on the app's own server.

const ADA_SESSION = { user: { sub: 'ada' }, expiresAt: Date.UTC(2030, 0, 1), idleExpiresAt: Date.UTC(2030, 0, 1) };
const UNAUTHORIZED = { status: 401, statusText: 'Unauthorized' };

describe('BffApp', () => {
  afterEach(() => TestBed.inject(HttpTestingController).verify());

  it('asks the server who is signed in, and shows it', async () => {
    await start();

    expect(text('signed-in-as')).toBe('Signed in as ada');
    expect(text('session-status')).toBe('Signed in as ada.');
    expect(byTestId('sign-in')).toBeNull();
  });

  it('offers the sign-in to a visitor, and no calls', async () => {
    await start(null);

    expect(text('session-status')).toBe('Signed out.');
    expect(byTestId('sign-in')).not.toBeNull();
    expect(byTestId<HTMLButtonElement>('burst')?.disabled).toBe(true);
  });

  it('fires the burst at once, each call with the x-csrf header, and counts the answers', async () => {
    const fixture = await start();
    setBurstSize(fixture, 3);

    byTestId('burst')?.click();
    const calls = http().match('/api/me');
    expect(calls).toHaveLength(3);
    expect(calls.map((call) => call.request.headers.get('x-csrf'))).toEqual(['1', '1', '1']);
    calls[0]?.flush({ sub: 'ada' });
    calls[1]?.flush({ sub: 'ada' });
    calls[2]?.flush(
      { error: { code: 'ProviderUnavailable', message: 'Try again later.' } },
      { status: 503, statusText: 'Service Unavailable' },
    );
    await settle(fixture);

    const result = byTestId('burst-result');
    expect(result?.textContent?.trim()).toMatch(
      /^Burst 1: 3 calls, 2 answered 200, 1 × 503 ProviderUnavailable, in \d+ ms\.$/,
    );
    expect(result?.dataset['ok']).toBe('2');
    expect(result?.dataset['failed']).toBe('1');
    expect(document.body.textContent).toContain('The API saw the access token of ada.');
  });

  it('says once that the session ended when calls meet its end, and offers the sign-in', async () => {
    const fixture = await start();
    setBurstSize(fixture, 2);

    byTestId('burst')?.click();
    for (const call of http().match('/api/me')) {
      call.flush(
        { error: { code: 'SessionEnded', message: 'Your session has ended; please sign in again.' } },
        UNAUTHORIZED,
      );
    }
    await settle(fixture);

    const notice = byTestId('session-ended');
    expect(notice?.textContent?.trim()).toBe('The session ended: Your session has ended; please sign in again.');
    expect(notice?.dataset['count']).toBe('1');
    expect(text('session-status')).toBe('Signed out.');
    expect(byTestId('sign-in')).not.toBeNull();
  });

  it('signs out without calling it an end of the session', async () => {
    const fixture = await start();

    byTestId('sign-out')?.click();
    // No end-session page to go to here: the browser stays.
    http().expectOne({ method: 'POST', url: '/bff/logout' }).flush({ endSessionUrl: null });
    await settle(fixture);

    expect(text('session-status')).toBe('Signed out.');
    expect(byTestId('session-ended')).toBeNull();
  });

  it('says so when the server could not sign out, and stays signed in', async () => {
    const fixture = await start();

    byTestId('sign-out')?.click();
    http()
      .expectOne('/bff/logout')
      .flush(
        { error: { code: 'StoreUnavailable', message: 'The session store did not answer; try again.' } },
        { status: 503, statusText: 'Service Unavailable' },
      );
    await settle(fixture);

    expect(text('sign-out-error')).toBe(
      'The server could not sign you out: The session store did not answer; try again.',
    );
    expect(text('signed-in-as')).toBe('Signed in as ada');
  });
});

/** Starts the app; the server answers its first question with `session` (`null`: nobody signed in). */
async function start(session: object | null = ADA_SESSION): Promise<ComponentFixture<BffApp>> {
  TestBed.configureTestingModule({ providers: [...bffAppConfig.providers, provideHttpClientTesting()] });
  const fixture = TestBed.createComponent(BffApp);
  const load = http().expectOne('/bff/session');
  if (session === null) load.flush({ error: { code: 'NoSession', message: 'Not signed in.' } }, UNAUTHORIZED);
  else load.flush(session);
  await settle(fixture);
  return fixture;
}

function http(): HttpTestingController {
  return TestBed.inject(HttpTestingController);
}

async function settle(fixture: ComponentFixture<unknown>): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    await fixture.whenStable();
  }
}

function setBurstSize(fixture: ComponentFixture<unknown>, size: number): void {
  const input = byTestId<HTMLInputElement>('burst-size');
  if (!input) throw new Error('no burst-size input');
  input.value = String(size);
  input.dispatchEvent(new Event('input'));
  fixture.detectChanges();
}

function byTestId<T extends HTMLElement = HTMLElement>(id: string): T | null {
  return document.querySelector<T>(`[data-testid="${id}"]`);
}

function text(id: string): string | undefined {
  return byTestId(id)?.textContent?.replace(/\s+/g, ' ').trim();
}
