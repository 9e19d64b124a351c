import type { HttpRequest } from '@angular/common/http';
import { Injectable, inject, untracked } from '@angular/core';
import {
  InMemoryDbService,
  type ParsedRequestUrl,
  type RequestInfo,
  type ResponseOptions,
} from 'angular-in-memory-web-api';
import type { Observable } from 'rxjs';

import { DemoServerState } from './demo-server-state';
import { DemoUserStore } from './demo-user-store';
import { errorResponse } from './demo-response';
import { type AuthEndpoint, handleAuthRequest } from './handle-auth-request';
import { handleUsersRequest } from './handle-users-request';
import { seedUsers } from './seed-users';

/**
 * The one "collection" the library knows of. Every request is parsed into it, so that a method this
 * class has no handler for (HEAD, OPTIONS, anything) still reaches `responseInterceptor`, where the
 * router answers it too, instead of the library's own 404 with a body outside the contract.
 */
const EVERY_REQUEST = 'demo';

/**
 * The showcase's in-memory backend (angular-in-memory-web-api 0.21.0): `/auth/login`, `/auth/refresh`,
 * `/auth/logout` and the users API at `/api/v1/users` (path versioning) and `/api/users` (with
 * `Accept: application/vnd.showcase.v1+json`), answering as the contract in DESIGN.md says, every error
 * with the uniform body `{ error: { code, message, details? } }`.
 *
 * The library's own handling is bypassed on purpose: it treats query parameters as regex filters,
 * has no PATCH, never sets `Location`, and runs `commands/resetdb` for any URL whose first segment is
 * `commands`. So `parseRequestUrl` sends every URL to one placeholder collection and the method
 * handlers route the request themselves, from the request's own URL, headers and body.
 *
 * Its state: the users (its own, seeded with 42) and `DemoServerState` (the accounts, tokens and
 * counters the showcase's controls reach into). Use it through {@link provideDemoBackend}.
 *
 * @usageNotes
 * ```ts
 * importProvidersFrom(HttpClientInMemoryWebApiModule.forRoot(DemoBackend, { delay: 0, passThruUnknownUrl: false }));
 * ```
 */
@Injectable()
export class DemoBackend extends InMemoryDbService {
  private readonly state = inject(DemoServerState);
  private readonly users = new DemoUserStore(seedUsers());

  /** The placeholder database; the data lives in this class (see {@link EVERY_REQUEST}). */
  createDb(): Record<string, unknown[]> {
    return { [EVERY_REQUEST]: [] };
  }

  /** Routes nothing: every URL goes to the placeholder collection, and away from `commands/`. */
  parseRequestUrl(): ParsedRequestUrl {
    return { apiBase: 'api/', collectionName: EVERY_REQUEST, id: '', query: new Map(), resourceUrl: '' };
  }

  /** Answers GET. */
  get(requestInfo: RequestInfo): Observable<unknown> {
    return this.respond(requestInfo);
  }

  /** Answers POST. */
  post(requestInfo: RequestInfo): Observable<unknown> {
    return this.respond(requestInfo);
  }

  /** Answers PUT. */
  put(requestInfo: RequestInfo): Observable<unknown> {
    return this.respond(requestInfo);
  }

  /** Answers PATCH (which the library itself would refuse with 405). */
  patch(requestInfo: RequestInfo): Observable<unknown> {
    return this.respond(requestInfo);
  }

  /** Answers DELETE. */
  delete(requestInfo: RequestInfo): Observable<unknown> {
    return this.respond(requestInfo);
  }

  /**
   * Answers every other method: the library's collection handler refused it (405, its own body),
   * and this replaces that answer with the router's (a 405 or 404 with the uniform body).
   */
  responseInterceptor(_refused: ResponseOptions, requestInfo: RequestInfo): ResponseOptions {
    return this.answer(requestInfo);
  }

  /** The answer as the library's Observable: it emits 2xx as an HttpResponse and errors with the rest. */
  private respond(requestInfo: RequestInfo): Observable<unknown> {
    return requestInfo.utils.createResponse$(() => this.answer(requestInfo));
  }

  private answer(requestInfo: RequestInfo): ResponseOptions {
    // reqInfo.headers are the RESPONSE headers; the request's own are on reqInfo.req.
    const request = requestInfo.req as HttpRequest<unknown>;
    let response: ResponseOptions;
    try {
      // The request may be made inside a reactive context (an effect, a computed): reading or
      // writing DemoServerState's signals here must not become a dependency of it.
      response = untracked(() => this.route(request));
    } catch (error) {
      // A bug of the mock must still look like a server failure, not like a broken HttpClient.
      console.error(error);
      response = errorResponse(500, 'ServerError', 'The demo backend failed; see the console.');
    }
    return { ...response, url: request.urlWithParams };
  }

  private route(request: HttpRequest<unknown>): ResponseOptions {
    const url = resolveUrl(request.urlWithParams);
    if (!url) return errorResponse(404, 'NotFound', `There is nothing at ${request.urlWithParams}.`);
    const method = request.method.toUpperCase();
    // One trailing slash or more is the same resource: `/api/v1/users/` is the collection.
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const now = Date.now();

    const auth = /^\/auth\/(login|refresh|logout)$/.exec(path);
    if (auth) {
      return method === 'POST'
        ? handleAuthRequest(auth[1] as AuthEndpoint, request, this.state, now)
        : errorResponse(405, 'MethodNotAllowed', `${method} is not allowed here; use POST.`, {
            headers: { Allow: 'POST' },
          });
    }
    const byAccept = /^\/api\/users(?:\/([^/]+))?$/.exec(path);
    if (byAccept) {
      const route = {
        collectionPath: '/api/users',
        id: byAccept[1] ?? null,
        versioning: 'accept',
        query: url.searchParams,
      } as const;
      return handleUsersRequest(request, route, this.users, this.state, now);
    }
    const byPath = /^\/api\/(v[^/]*)\/users(?:\/([^/]+))?$/.exec(path);
    if (byPath) {
      if (byPath[1] !== 'v1') {
        return errorResponse(
          404,
          'NotFound',
          `Version ${byPath[1]} of the users API does not exist; use /api/v1/users.`,
        );
      }
      const route = {
        collectionPath: '/api/v1/users',
        id: byPath[2] ?? null,
        versioning: 'path',
        query: url.searchParams,
      } as const;
      return handleUsersRequest(request, route, this.users, this.state, now);
    }
    return errorResponse(404, 'NotFound', `There is nothing at ${path}.`);
  }
}

/**
 * The request URL resolved against the page, or `null` when it is on another origin: the mock stands
 * in for this app's own server only, and a call meant for somewhere else must not be answered as if.
 */
function resolveUrl(url: string): URL | null {
  // baseURI is what the browser would resolve the request against (it honours <base href>).
  const base = typeof document === 'undefined' ? 'http://localhost/' : document.baseURI;
  try {
    const resolved = new URL(url, base);
    return resolved.origin === new URL(base).origin ? resolved : null;
  } catch {
    return null;
  }
}
