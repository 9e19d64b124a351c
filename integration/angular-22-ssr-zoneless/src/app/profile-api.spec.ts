import { TestBed } from '@angular/core/testing';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { injectTokenRefresh } from 'ngx-token-refresh';
import { createTestJwt } from 'ngx-token-refresh/testing';
import { appConfig } from './app.config';
import { ProfileApi } from './profile-api';

// Written the way the ngx-token-refresh README ("Testing your app") tells users to: the app's own
// providers, Angular's HttpTestingController, and createTestJwt from ngx-token-refresh/testing.
describe('ProfileApi behind ngx-token-refresh', () => {
  let httpTesting: HttpTestingController;

  beforeEach(() => {
    TestBed.configureTestingModule({
      providers: [...appConfig.providers, provideHttpClientTesting()],
    });
    httpTesting = TestBed.inject(HttpTestingController);
  });

  afterEach(() => httpTesting.verify());

  it('answers three 401s with one refresh and repeats every call with the new token', () => {
    const expired = createTestJwt({ sub: 'ada', exp: Math.floor(Date.now() / 1000) - 60 });
    const fresh = createTestJwt({ sub: 'ada' });
    TestBed.runInInjectionContext(() => injectTokenRefresh().setToken(expired));
    const api = TestBed.inject(ProfileApi);
    const users: string[] = [];
    for (let i = 0; i < 3; i++) api.get().subscribe((profile) => users.push(profile.user));

    const first = httpTesting.match('/api/profile');
    expect(first.length).toBe(3);
    for (const call of first) {
      expect(call.request.headers.get('Authorization')).toBe(`Bearer ${expired}`);
      call.flush(null, { status: 401, statusText: 'Unauthorized' });
    }

    httpTesting.expectOne('/auth/refresh').flush({ accessToken: fresh });

    const repeated = httpTesting.match('/api/profile');
    expect(repeated.length).toBe(3);
    for (const call of repeated) {
      expect(call.request.headers.get('Authorization')).toBe(`Bearer ${fresh}`);
      call.flush({ user: 'ada', token: fresh });
    }
    expect(users).toEqual(['ada', 'ada', 'ada']);
  });
});
