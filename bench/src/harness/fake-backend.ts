import {
  type HttpBackend,
  type HttpEvent,
  HttpErrorResponse,
  HttpEventType,
  type HttpRequest,
  HttpResponse,
} from '@angular/common/http';
import { Observable, type Subscriber } from 'rxjs';

import { REFRESH_URL } from '../contenders/urls';

export { API_URL, REFRESH_URL } from '../contenders/urls';

const ITEMS = [{ id: 1 }, { id: 2 }];
const UNAUTHORIZED = { error: { code: 'Unauthorized', message: 'The access token is expired.' } };

interface Held {
  readonly request: HttpRequest<unknown>;
  readonly subscriber: Subscriber<HttpEvent<unknown>>;
}

/**
 * An `HttpBackend` that answers at once (synchronously), so the figures measure the interceptors
 * and not I/O. Like a real backend it reports `Sent` first and reads the request's headers (which
 * makes `HttpHeaders` apply its lazy updates, as XHR and fetch do).
 *
 * It plays the server too: an API request passes with `Authorization: Bearer <current token>` and
 * fails with 401 otherwise; `expire()` ends the current token; a refresh issues a new one (or hands
 * out the current one again if it is still valid). For bursts it can hold API requests until
 * `flush()` (so all of them are in flight before the first 401 comes back) and the refresh until
 * `releaseRefresh()` (the moment the settle time is measured from).
 */
export class FakeBackend implements HttpBackend {
  /** Answer 401 to API requests without the current token; off for the happy path's `bare`. */
  enforce = true;
  /** Keep API requests until `flush()`. */
  holdApi = false;
  /** Keep refresh requests until `releaseRefresh()`; later refreshes are answered in a microtask. */
  holdRefresh = false;
  /** Answer refreshes with 401 (refresh token revoked). */
  failRefresh = false;

  apiRequests = 0;
  unauthorized = 0;
  refreshCalls = 0;
  /** The `Authorization` header of the last API request, to check that a contender attaches. */
  lastAuthorization: string | null = null;

  private serial = 0;
  private token: string | null = null;
  private expected: string | null = null;
  private heldApi: Held[] = [];
  private heldRefresh: Held[] = [];

  /** Issues a token (a login) and returns it. */
  issueToken(): string {
    this.setToken(`token-${++this.serial}`);
    return this.token as string;
  }

  /** The current token expires: every API request carrying it fails with 401 from now on. */
  expire(): void {
    this.setToken(null);
  }

  handle(request: HttpRequest<unknown>): Observable<HttpEvent<unknown>> {
    return new Observable<HttpEvent<unknown>>((subscriber) => {
      subscriber.next({ type: HttpEventType.Sent });
      if (request.url === REFRESH_URL) {
        this.refreshCalls++;
        if (this.holdRefresh) this.heldRefresh.push({ request, subscriber });
        else queueMicrotask(() => this.answerRefresh(subscriber));
      } else if (this.holdApi) {
        this.heldApi.push({ request, subscriber });
      } else {
        this.answerApi(request, subscriber);
      }
    });
  }

  /** Answers every held API request, in the order they came. */
  flush(): void {
    const held = this.heldApi;
    this.heldApi = [];
    for (const { request, subscriber } of held) if (!subscriber.closed) this.answerApi(request, subscriber);
  }

  /** Answers the held refresh request(s); later ones are answered in a microtask. */
  releaseRefresh(): void {
    this.holdRefresh = false;
    const held = this.heldRefresh;
    this.heldRefresh = [];
    for (const { subscriber } of held) if (!subscriber.closed) this.answerRefresh(subscriber);
  }

  /** How many requests are held (API, refresh). */
  heldCounts(): { api: number; refresh: number } {
    return { api: this.heldApi.length, refresh: this.heldRefresh.length };
  }

  private answerApi(request: HttpRequest<unknown>, subscriber: Subscriber<HttpEvent<unknown>>): void {
    this.apiRequests++;
    const authorization = request.headers.get('Authorization');
    this.lastAuthorization = authorization;
    if (this.enforce && (this.expected === null || authorization !== this.expected)) {
      this.unauthorized++;
      subscriber.error(
        new HttpErrorResponse({ status: 401, statusText: 'Unauthorized', url: request.url, error: UNAUTHORIZED }),
      );
      return;
    }
    subscriber.next(new HttpResponse({ status: 200, statusText: 'OK', url: request.url, body: ITEMS }));
    subscriber.complete();
  }

  private answerRefresh(subscriber: Subscriber<HttpEvent<unknown>>): void {
    if (subscriber.closed) return;
    if (this.failRefresh) {
      subscriber.error(
        new HttpErrorResponse({ status: 401, statusText: 'Unauthorized', url: REFRESH_URL, error: UNAUTHORIZED }),
      );
      return;
    }
    const accessToken = this.token ?? this.issueToken();
    subscriber.next(new HttpResponse({ status: 200, statusText: 'OK', url: REFRESH_URL, body: { accessToken } }));
    subscriber.complete();
  }

  private setToken(token: string | null): void {
    this.token = token;
    this.expected = token === null ? null : `Bearer ${token}`;
  }
}
