import { HttpClient, HttpHeaders, HttpParams, type HttpResponse } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { type Observable, catchError, map, throwError } from 'rxjs';

import { ApiError } from '../errors/api-error';
import { parseApiError } from '../errors/parse-api-error';
import { USERS_API_CONFIG } from './provide-users-api';
import type { Created, NewUser, Page, Pagination, User } from './user';

/**
 * Client of the versioned users REST API (`provideUsersApi` sets where it lives). Every method
 * returns a cold Observable; every failure is an {@link ApiError}. Invalid arguments fail at once
 * with code `InvalidArgument` and send nothing; a response that is not what the contract promises
 * fails with code `InvalidResponse`.
 *
 * | method | HTTP | success |
 * |---|---|---|
 * | `list({ page, pageSize })` | `GET /users?page&pageSize` | a `Page<User>` |
 * | `get(id)` | `GET /users/{id}` | the `User` |
 * | `create(user)` | `POST /users` | the created `User` (201) |
 * | `createWithLocation(user)` | `POST /users` | `{ value: User, location }` |
 * | `update(id, user)` | `PUT /users/{id}` | completes (204) |
 * | `patch(id, changes)` | `PATCH /users/{id}`, merge patch | the `User`, or `null` on 204 |
 * | `delete(id)` | `DELETE /users/{id}` | completes (204) |
 *
 * @usageNotes
 * ```ts
 * export class UsersPage {
 *   private readonly users = inject(UsersService);
 *   readonly page = rxResource({ params: () => this.pageNumber(), stream: ({ params }) => this.users.list({ page: params, pageSize: 20 }) });
 * }
 * ```
 */
@Injectable({ providedIn: 'root' })
export class UsersService {
  private readonly http = inject(HttpClient);
  private readonly config = inject(USERS_API_CONFIG);

  /**
   * One page of users. Sends `page` and `pageSize` only when given. A server that answers with a
   * plain array gives one page holding every item.
   */
  list(params: { page?: number; pageSize?: number } = {}): Observable<Page<User>> {
    const { page, pageSize } = params;
    const invalid = invalidCount('page', page) ?? invalidCount('pageSize', pageSize);
    if (invalid) return throwError(() => invalid);
    let query = new HttpParams();
    if (page !== undefined) query = query.set('page', page);
    if (pageSize !== undefined) query = query.set('pageSize', pageSize);
    return this.request<unknown>('GET', this.config.usersUrl, { params: query }).pipe(
      map((response) => toPage(response)),
      catchError(rethrowAsApiError),
    );
  }

  /** The user with this id. */
  get(id: number): Observable<User> {
    return this.withId(id, (url) =>
      this.request<unknown>('GET', url).pipe(map((response) => toUser(response.body, response))),
    );
  }

  /** Creates a user; emits it as the server stored it (201). */
  create(user: NewUser): Observable<User> {
    return this.createWithLocation(user).pipe(map((created) => created.value));
  }

  /** Creates a user; emits it together with the `Location` the server gave it (`null` if none). */
  createWithLocation(user: NewUser): Observable<Created<User>> {
    return this.request<unknown>('POST', this.config.usersUrl, { body: user }).pipe(
      map((response) => ({ value: toUser(response.body, response), location: response.headers.get('Location') })),
      catchError(rethrowAsApiError),
    );
  }

  /** Replaces a user with these fields (`PUT`, idempotent); completes on 204. */
  update(id: number, user: NewUser): Observable<void> {
    return this.withId(id, (url) =>
      this.request<unknown>('PUT', url, { body: { ...user, id } }).pipe(map(() => undefined)),
    );
  }

  /**
   * Changes only the given fields (JSON Merge Patch, `Content-Type: application/merge-patch+json`);
   * fields left `undefined` are not sent. Emits the updated user when the server sends one, `null`
   * on 204.
   */
  patch(id: number, changes: Partial<NewUser>): Observable<User | null> {
    const body = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    return this.withId(id, (url) =>
      this.request<unknown>('PATCH', url, {
        body,
        headers: { 'Content-Type': 'application/merge-patch+json' },
      }).pipe(map((response) => (response.body === null ? null : toUser(response.body, response)))),
    );
  }

  /** Deletes a user; completes on 204. */
  delete(id: number): Observable<void> {
    return this.withId(id, (url) => this.request<unknown>('DELETE', url).pipe(map(() => undefined)));
  }

  /** Checks the id, then runs `call` on the user's URL with errors turned into ApiErrors. */
  private withId<T>(id: number, call: (url: string) => Observable<T>): Observable<T> {
    if (!Number.isSafeInteger(id) || id < 1) {
      return throwError(() => invalidArgument(`id must be a whole number from 1, got ${describe(id)}`));
    }
    return call(`${this.config.usersUrl}/${id}`).pipe(catchError(rethrowAsApiError));
  }

  private request<T>(
    method: string,
    url: string,
    options: { body?: unknown; params?: HttpParams; headers?: Record<string, string> } = {},
  ): Observable<HttpResponse<T>> {
    let headers = new HttpHeaders(options.headers ?? {});
    if (this.config.accept) headers = headers.set('Accept', this.config.accept);
    return this.http.request<T>(method, url, {
      body: options.body,
      params: options.params,
      headers,
      observe: 'response',
      responseType: 'json',
    });
  }
}

const rethrowAsApiError = (error: unknown) => throwError(() => parseApiError(error));

function invalidArgument(message: string): ApiError {
  return new ApiError(0, 'InvalidArgument', message);
}

function invalidCount(name: string, value: number | undefined): ApiError | null {
  if (value === undefined || (Number.isSafeInteger(value) && value >= 1)) return null;
  return invalidArgument(`${name} must be a whole number from 1, got ${describe(value)}`);
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

function invalidResponse(response: HttpResponse<unknown>, problem: string): ApiError {
  return new ApiError(response.status, 'InvalidResponse', `The server sent an unexpected answer (${problem}).`, [], {
    cause: response,
  });
}

function toUser(value: unknown, response: HttpResponse<unknown>): User {
  if (!isUser(value)) throw invalidResponse(response, 'not a user');
  return value;
}

function isUser(value: unknown): value is User {
  if (typeof value !== 'object' || value === null) return false;
  const { id, name, email } = value as Record<string, unknown>;
  return Number.isSafeInteger(id) && typeof name === 'string' && typeof email === 'string';
}

function toPage(response: HttpResponse<unknown>): Page<User> {
  const body = response.body;
  if (Array.isArray(body)) {
    if (!body.every(isUser)) throw invalidResponse(response, 'a list holding something that is not a user');
    const count = body.length;
    return { data: body, pagination: { currentPage: 1, pageSize: count, totalPages: 1, totalItems: count } };
  }
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const { data, pagination } = envelope;
  if (!Array.isArray(data) || !data.every(isUser) || !isPagination(pagination)) {
    throw invalidResponse(response, 'neither a list of users nor a page of them');
  }
  return { data, pagination };
}

function isPagination(value: unknown): value is Pagination {
  if (typeof value !== 'object' || value === null) return false;
  const fields = value as Record<string, unknown>;
  return ['currentPage', 'pageSize', 'totalPages', 'totalItems'].every(
    (key) => Number.isSafeInteger(fields[key]) && (fields[key] as number) >= 0,
  );
}
