import { HttpErrorResponse, type HttpInterceptorFn, provideHttpClient, withInterceptors } from '@angular/common/http';
import type { EnvironmentProviders } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { tokenRefreshInterceptor, withNoCrossTabSync } from 'ngx-token-refresh';
import { ApiError, AuthClient, UsersService, provideAuth, provideUsersApi } from 'ngx-token-refresh/client';
import { type Observable, firstValueFrom, forkJoin, lastValueFrom, tap } from 'rxjs';

import { demoBackendInterceptors } from './demo-backend-interceptors';
import { DemoServerState } from './demo-server-state';
import { provideDemoBackend } from './provide-demo-backend';

// The library against the demo backend, wired as the showcase wires it: tokenRefreshInterceptor
// first, the demo interceptors last, provideAuth and UsersService (provideUsersApi's default unless
// a test says otherwise). Real timers: the latency is what makes the calls overlap.
describe('the library against DemoBackend', () => {
  it('turns 10 concurrent calls with an expired token into one refresh and 10 successes', async () => {
    const { auth, users, state, unauthorizedUserCalls } = setup();
    await firstValueFrom(auth.login({ username: 'ada', password: 'lovelace' }), { defaultValue: undefined });
    const loginToken = auth.accessToken();
    state.expireAccessTokensNow();
    state.resetRefreshCalls();
    state.latencyMs.set(20);

    const results = await firstValueFrom(forkJoin(range(1, 10).map((id) => users.get(id))));

    expect(results.map((user) => user.id)).toEqual(range(1, 10));
    // All ten went out with the expired token and were refused, yet the backend saw one refresh.
    expect(unauthorizedUserCalls()).toBe(10);
    expect(state.refreshCalls()).toBe(1);
    expect(auth.accessToken()).not.toBe(loginToken);
  });

  it('rejects every waiting call and ends the session when the refresh token was revoked', async () => {
    const onSessionExpired = jest.fn();
    const { auth, users, state } = setup(provideUsersApi(), onSessionExpired);
    await firstValueFrom(auth.login({ username: 'ada', password: 'lovelace' }), { defaultValue: undefined });
    state.expireAccessTokensNow();
    state.revokeRefreshToken();
    state.resetRefreshCalls();
    state.latencyMs.set(20);

    const failures = await Promise.all(range(1, 5).map((id) => failureOf(users.get(id))));

    expect(failures.every((failure) => failure instanceof ApiError && failure.status === 401)).toBe(true);
    expect(state.refreshCalls()).toBe(1);
    expect(onSessionExpired).toHaveBeenCalledTimes(1);
    expect(onSessionExpired).toHaveBeenCalledWith(expect.objectContaining({ code: 'InvalidRefreshToken' }));
    expect(auth.accessToken()).toBeNull();
  });

  it('reports wrong credentials as ApiError InvalidCredentials', async () => {
    const { auth } = setup();
    const failure = await failureOf(auth.login({ username: 'ada', password: 'wrong' }));

    expect(failure).toMatchObject({ status: 401, code: 'InvalidCredentials' });
  });

  it('pages, creates (with Location), patches, replaces and deletes through UsersService', async () => {
    const { auth, users } = setup();
    await firstValueFrom(auth.login({ username: 'ada', password: 'lovelace' }), { defaultValue: undefined });

    const page = await firstValueFrom(users.list({ page: 5, pageSize: 10 }));
    const created = await firstValueFrom(users.createWithLocation({ name: 'Grace', email: 'grace@example.com' }));
    const patched = await firstValueFrom(users.patch(created.value.id, { name: 'Grace H.' }));
    await lastValueFrom(users.replace(created.value.id, { name: 'Grace Hopper II', email: 'g2@example.com' }), {
      defaultValue: undefined,
    });
    const replaced = await firstValueFrom(users.get(created.value.id));
    await lastValueFrom(users.delete(created.value.id), { defaultValue: undefined });

    expect(page.data.map((user) => user.id)).toEqual([41, 42]);
    expect(page.pagination).toEqual({ currentPage: 5, pageSize: 10, totalPages: 5, totalItems: 42 });
    expect(created).toEqual({
      value: { id: 43, name: 'Grace', email: 'grace@example.com' },
      location: '/api/v1/users/43',
    });
    expect(patched).toEqual({ id: 43, name: 'Grace H.', email: 'grace@example.com' });
    expect(replaced).toEqual({ id: 43, name: 'Grace Hopper II', email: 'g2@example.com' });
    expect(await failureOf(users.get(43))).toMatchObject({ status: 404, code: 'NotFound' });
  });

  it('hands UsersService callers the uniform error body as an ApiError with its details', async () => {
    const { auth, users } = setup();
    await firstValueFrom(auth.login({ username: 'ada', password: 'lovelace' }), { defaultValue: undefined });
    const failure = await failureOf(users.create({ name: 'Ada', email: 'ada.lovelace@example.com' }));

    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({
      status: 409,
      code: 'Conflict',
      details: [{ target: 'email', message: 'is already taken' }],
    });
  });

  it('works with Accept versioning (vendor showcase), and a version the backend lacks is a 406', async () => {
    const v1 = setup(provideUsersApi({ versioning: 'accept', vendor: 'showcase' }));
    await firstValueFrom(v1.auth.login({ username: 'alan', password: 'turing' }), { defaultValue: undefined });
    const created = await failureOf(v1.users.create({ name: 'Viewer', email: 'viewer@example.com' }));
    const page = await firstValueFrom(v1.users.list({ page: 1, pageSize: 3 }));

    expect(page.data.map((user) => user.id)).toEqual([1, 2, 3]);
    expect(created).toMatchObject({ status: 403, code: 'Forbidden' });

    TestBed.resetTestingModule();
    const v2 = setup(provideUsersApi({ versioning: 'accept', vendor: 'showcase', version: 2 }));
    await firstValueFrom(v2.auth.login({ username: 'ada', password: 'lovelace' }), { defaultValue: undefined });
    expect(await failureOf(v2.users.list())).toMatchObject({ status: 406, code: 'NotAcceptable' });
  });

  it('refuses a refresh after logout', async () => {
    const { auth, state } = setup();
    await firstValueFrom(auth.login({ username: 'ada', password: 'lovelace' }), { defaultValue: undefined });
    await firstValueFrom(auth.logout(), { defaultValue: undefined });

    expect(state.currentRefreshToken()).toBeNull();
    expect(await failureOf(auth.refresh())).toMatchObject({ status: 401, code: 'InvalidRefreshToken' });
  });
});

function setup(usersApi: EnvironmentProviders = provideUsersApi(), onSessionExpired = jest.fn()) {
  let unauthorized = 0;
  // Sits where the showcase's own interceptors sit: after the refresh logic, before the demo ones.
  const countUnauthorizedUserCalls: HttpInterceptorFn = (request, next) =>
    next(request).pipe(
      tap({
        error: (error: unknown) => {
          if (error instanceof HttpErrorResponse && error.status === 401 && request.url.includes('/users'))
            unauthorized++;
        },
      }),
    );
  TestBed.configureTestingModule({
    providers: [
      provideHttpClient(
        withInterceptors([tokenRefreshInterceptor, countUnauthorizedUserCalls, ...demoBackendInterceptors]),
      ),
      provideDemoBackend(),
      provideAuth({ onSessionExpired }, withNoCrossTabSync()),
      usersApi,
    ],
  });
  const state = TestBed.inject(DemoServerState);
  state.latencyMs.set(0);
  return {
    auth: TestBed.inject(AuthClient),
    users: TestBed.inject(UsersService),
    state,
    unauthorizedUserCalls: () => unauthorized,
  };
}

/** What `source` fails with (the test fails if it succeeds). */
async function failureOf(source: Observable<unknown>): Promise<unknown> {
  try {
    await lastValueFrom(source, { defaultValue: undefined });
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}
