import {
  HTTP_INTERCEPTORS,
  HttpClient,
  HttpErrorResponse,
  type HttpEvent,
  type HttpHandler,
  type HttpInterceptor,
  type HttpRequest,
  provideHttpClient,
  withInterceptorsFromDi,
} from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { BehaviorSubject, type Observable, catchError, filter, switchMap, take, throwError } from 'rxjs';

import type { Contender } from './contender';
import { REFRESH_URL } from './urls';

// The pattern of the widespread tutorials (e.g. bezkoder's "Angular JWT Refresh Token", Angular
// Academy's "Angular Authentication"), written as they write it: a class interceptor with an
// `isRefreshing` flag and a `BehaviorSubject<string | null>` that the other failed requests wait on
// with filter/take(1)/switchMap. Only the services' names and the `inject()` calls are ours. One
// kindness: a 401 from the refresh request itself does not enter the refresh logic (in the tutorials
// it would wait on the subject forever).

@Injectable({ providedIn: 'root' })
export class TokenStorageService {
  private token: string | null = null;

  getToken(): string | null {
    return this.token;
  }

  saveToken(token: string): void {
    this.token = token;
  }

  signOut(): void {
    this.token = null;
  }
}

@Injectable({ providedIn: 'root' })
export class TutorialAuthService {
  private readonly http = inject(HttpClient);

  refreshToken(): Observable<{ accessToken: string }> {
    return this.http.post<{ accessToken: string }>(REFRESH_URL, null);
  }
}

@Injectable()
export class TutorialAuthInterceptor implements HttpInterceptor {
  private isRefreshing = false;
  private refreshTokenSubject = new BehaviorSubject<string | null>(null);
  private readonly tokenService = inject(TokenStorageService);
  private readonly authService = inject(TutorialAuthService);

  intercept(req: HttpRequest<unknown>, next: HttpHandler): Observable<HttpEvent<unknown>> {
    let authReq = req;
    const token = this.tokenService.getToken();
    if (token != null) {
      authReq = this.addTokenHeader(req, token);
    }

    return next.handle(authReq).pipe(
      catchError((error) => {
        if (
          error instanceof HttpErrorResponse &&
          !authReq.url.includes('auth/signin') &&
          !authReq.url.includes('auth/refresh') &&
          error.status === 401
        ) {
          return this.handle401Error(authReq, next);
        }
        return throwError(() => error);
      }),
    );
  }

  private handle401Error(request: HttpRequest<unknown>, next: HttpHandler): Observable<HttpEvent<unknown>> {
    if (!this.isRefreshing) {
      this.isRefreshing = true;
      this.refreshTokenSubject.next(null);

      return this.authService.refreshToken().pipe(
        switchMap((token) => {
          this.isRefreshing = false;
          this.tokenService.saveToken(token.accessToken);
          this.refreshTokenSubject.next(token.accessToken);
          return next.handle(this.addTokenHeader(request, token.accessToken));
        }),
        catchError((err) => {
          this.isRefreshing = false;
          this.tokenService.signOut();
          return throwError(() => err);
        }),
      );
    }

    return this.refreshTokenSubject.pipe(
      filter((token) => token !== null),
      take(1),
      switchMap((token) => next.handle(this.addTokenHeader(request, token as string))),
    );
  }

  private addTokenHeader(request: HttpRequest<unknown>, token: string): HttpRequest<unknown> {
    return request.clone({ headers: request.headers.set('Authorization', 'Bearer ' + token) });
  }
}

export const behaviorSubject: Contender = {
  id: 'behavior-subject',
  label: 'BehaviorSubject pattern (tutorial)',
  refreshes: true,
  providers: () => [
    provideHttpClient(withInterceptorsFromDi()),
    { provide: HTTP_INTERCEPTORS, useClass: TutorialAuthInterceptor, multi: true },
  ],
  login: (injector, token) => injector.get(TokenStorageService).saveToken(token),
};
