import * as angularHttp from '@angular/common/http';
import { HttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import * as angularCore from '@angular/core';
import { TestBed } from '@angular/core/testing';
import * as library from 'ngx-token-refresh';
import * as rxjs from 'rxjs';
import ts from 'typescript';

import { track } from '../src/lib/track.spec-helper';
import { READMES, readCodeBlocks } from './readme-code.spec-helper';

// What a newcomer gets from pasting the first two blocks of each README (app.config.ts, then the
// login of session.ts) into a fresh app: the token attached after login, one refresh on a 401, the
// request repeated with the new token, and no warning. The blocks run as the README has them.
describe.each(READMES)('the first snippet of %s, pasted into an app', (readme) => {
  let warn: jest.SpyInstance;
  beforeEach(() => (warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined)));
  afterEach(() => {
    TestBed.inject(HttpTestingController).verify();
    warn.mockRestore();
  });

  it('sends the token from the login, refreshes it once on a 401 and repeats the request with the new one', () => {
    const { http, httpTesting, session } = setup(readme);
    track(session.login('ada', 'lovelace'));
    const login = httpTesting.expectOne('/auth/login');
    expect(login.request.headers.has('Authorization')).toBe(false);
    login.flush({ accessToken: 'from-login' });

    const users = track(http.get('/api/v1/users'));
    const first = httpTesting.expectOne('/api/v1/users');
    expect(first.request.headers.get('Authorization')).toBe('Bearer from-login');
    first.flush(null, { status: 401, statusText: 'Unauthorized' });
    const refresh = httpTesting.expectOne('/auth/refresh');
    expect(refresh.request.withCredentials).toBe(true);
    refresh.flush({ accessToken: 'refreshed' });
    const repeat = httpTesting.expectOne('/api/v1/users');
    expect(repeat.request.headers.get('Authorization')).toBe('Bearer refreshed');
    repeat.flush([{ id: 1 }]);

    expect(users.value).toEqual([{ id: 1 }]);
    track(http.get('/api/v1/users/1'));
    expect(httpTesting.expectOne('/api/v1/users/1').request.headers.get('Authorization')).toBe('Bearer refreshed');
    expect(warn).not.toHaveBeenCalled();
  });

  it('starts no refresh for a wrong password, and sends no token after logout', () => {
    const { http, httpTesting, session } = setup(readme);
    const failed = track(session.login('ada', 'wrong'));
    httpTesting.expectOne('/auth/login').flush(null, { status: 401, statusText: 'Unauthorized' });
    httpTesting.expectNone('/auth/refresh');
    expect(failed.error).toBeInstanceOf(angularHttp.HttpErrorResponse);

    track(session.login('ada', 'lovelace'));
    httpTesting.expectOne('/auth/login').flush({ accessToken: 'from-login' });
    session.logout();
    track(http.get('/api/v1/users'));
    expect(httpTesting.expectOne('/api/v1/users').request.headers.has('Authorization')).toBe(false);
  });
});

interface Session {
  login(username: string, password: string): rxjs.Observable<unknown>;
  logout(): void;
}

/** An app made of the README's first two blocks: its `appConfig` and its `Session`. */
function setup(readme: string) {
  const [config, session] = readCodeBlocks(readme);
  const { appConfig } = run(config?.code ?? '') as { appConfig: angularCore.ApplicationConfig };
  const { Session } = run(session?.code ?? '') as { Session: angularCore.Type<Session> };
  TestBed.configureTestingModule({ providers: [...appConfig.providers, provideHttpClientTesting()] });
  return {
    http: TestBed.inject(HttpClient),
    httpTesting: TestBed.inject(HttpTestingController),
    session: TestBed.inject(Session),
  };
}

/** Runs a block as a CommonJS module whose imports are the packages this spec has loaded; its exports. */
function run(code: string): Record<string, unknown> {
  const modules: Record<string, unknown> = {
    '@angular/common/http': angularHttp,
    '@angular/core': angularCore,
    'ngx-token-refresh': library,
    rxjs,
  };
  const { outputText } = ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, experimentalDecorators: true },
  });
  const exports: Record<string, unknown> = {};
  const load = (name: string) => {
    if (!(name in modules)) throw new Error(`the README block imports ${name}, which this spec does not provide`);
    return modules[name];
  };
  new Function('require', 'exports', outputText)(load, exports);
  return exports;
}
