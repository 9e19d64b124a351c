import {
  HttpClient,
  type HttpErrorResponse,
  type HttpRequest,
  provideHttpClient,
  withInterceptorsFromDi,
} from '@angular/common/http';
import { Injectable, importProvidersFrom, inject } from '@angular/core';
import {
  AUTH_SERVICE,
  AuthModule,
  type AuthService,
  PROTECTED_FALLBACK_PAGE_URI,
  PUBLIC_FALLBACK_PAGE_URI,
} from 'ngx-auth';
import { type Observable, of, tap } from 'rxjs';

import type { Contender } from './contender';
import { REFRESH_URL } from './urls';

/** The `AuthService` ngx-auth asks the application for, as in its README. */
@Injectable()
export class AuthenticationService implements AuthService {
  private readonly http = inject(HttpClient);
  private accessToken: string | null = null;

  isAuthorized(): Observable<boolean> {
    return of(this.accessToken !== null);
  }

  getAccessToken(): Observable<string | null> {
    return of(this.accessToken);
  }

  refreshToken(): Observable<{ accessToken: string }> {
    return this.http
      .post<{ accessToken: string }>(REFRESH_URL, null)
      .pipe(tap({ next: ({ accessToken }) => (this.accessToken = accessToken), error: () => this.logout() }));
  }

  refreshShouldHappen(response: HttpErrorResponse): boolean {
    return response.status === 401;
  }

  verifyRefreshToken(request: HttpRequest<unknown>): boolean {
    return request.url.endsWith(REFRESH_URL);
  }

  login(token: string): void {
    this.accessToken = token;
  }

  logout(): void {
    this.accessToken = null;
  }
}

/**
 * ngx-auth 6 (Angular 16+): `AuthModule` registers a class interceptor that refreshes on 401 with a
 * queue (a `Subject`), and repeats failed requests through `HttpClient.request()`.
 */
export const ngxAuth: Contender = {
  id: 'ngx-auth',
  label: 'ngx-auth 6',
  refreshes: true,
  providers: () => [
    provideHttpClient(withInterceptorsFromDi()),
    importProvidersFrom(AuthModule),
    { provide: AUTH_SERVICE, useClass: AuthenticationService },
    { provide: PUBLIC_FALLBACK_PAGE_URI, useValue: '/login' },
    { provide: PROTECTED_FALLBACK_PAGE_URI, useValue: '/' },
  ],
  login: (injector, token) => (injector.get(AUTH_SERVICE) as AuthenticationService).login(token),
};
