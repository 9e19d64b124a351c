import { HttpClient, HttpHeaders, HttpParams, type HttpResponse } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { type Observable, catchError, map, throwError } from 'rxjs';

import { ApiError } from '../errors/api-error';
import { parseApiError } from '../errors/parse-api-error';
import { USERS_API_CONFIG } from './provide-users-api';
import type { CreatedResource, NewUser, Page, Pagination, User } from './user';

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
 * | `replace(id, user)` | `PUT /users/{id}` | completes (204) |
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
    let query = new HttpParams();
    if (page !== undefined) query = query.set('page', page);
    if (pageSize !== undefined) query = query.set('pageSize', pageSize);
    return this.send({
      method: 'GET',
      url: this.config.usersUrl,
      argumentError: invalidCount('page', page) ?? invalidCount('pageSize', pageSize),
      params: query,
      read: toPage,
    });
  }

  /** The user with this id. */
  get(id: number): Observable<User> {
    return this.send({ method: 'GET', url: this.userUrl(id), argumentError: invalidId(id), read: toUser });
  }

  /** Creates a user; emits it as the server stored it (201). */
  create(user: NewUser): Observable<User> {
    return this.send({ method: 'POST', url: this.config.usersUrl, body: user, read: toUser });
  }

  /** Creates a user; emits it together with the `Location` the server gave it (`null` if none). */
  createWithLocation(user: NewUser): Observable<CreatedResource<User>> {
    return this.send({
      method: 'POST',
      url: this.config.usersUrl,
      body: user,
      read: (response) => ({ value: toUser(response), location: response.headers.get('Location') }),
    });
  }

  /**
   * Replaces a user with these fields (`PUT`, idempotent; the body is the whole user, `id`
   * included); completes on 204.
   *
   * @usageNotes
   * ```ts
   * this.users.replace(user.id, { name: 'Ada King', email: 'ada@example.com' }).subscribe();
   * ```
   */
  replace(id: number, user: NewUser): Observable<void> {
    return this.send({
      method: 'PUT',
      url: this.userUrl(id),
      argumentError: invalidId(id),
      body: { ...user, id },
      read: () => undefined,
    });
  }

  /**
   * Changes only the given fields (JSON Merge Patch, `Content-Type: application/merge-patch+json`);
   * fields left `undefined` are not sent. Emits the updated user when the server sends one, `null`
   * on 204.
   */
  patch(id: number, changes: Partial<NewUser>): Observable<User | null> {
    const body = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    return this.send({
      method: 'PATCH',
      url: this.userUrl(id),
      argumentError: invalidId(id),
      body,
      headers: { 'Content-Type': 'application/merge-patch+json' },
      read: (response) => (response.body === null ? null : toUser(response)),
    });
  }

  /** Deletes a user; completes on 204. */
  delete(id: number): Observable<void> {
    return this.send({ method: 'DELETE', url: this.userUrl(id), argumentError: invalidId(id), read: () => undefined });
  }

  private userUrl(id: number): string {
    return `${this.config.usersUrl}/${id}`;
  }

  /** The one way every method reaches the server, so that every failure reaches its caller as an ApiError. */
  private send<T>({ method, url, argumentError, body, params, headers, read }: Send<T>): Observable<T> {
    if (argumentError) return throwError(() => argumentError);
    let requestHeaders = new HttpHeaders(headers ?? {});
    if (this.config.accept) requestHeaders = requestHeaders.set('Accept', this.config.accept);
    return this.http
      .request(method, url, { body, params, headers: requestHeaders, observe: 'response', responseType: 'json' })
      .pipe(
        map(read),
        // After `map`: an answer that breaks the contract (or a bug in `read`) must reach the caller
        // as an ApiError too, not as whatever `read` threw.
        catchError((error: unknown) => throwError(() => parseApiError(error))),
      );
  }
}

/** One request of {@link UsersService} and how to read its answer. */
interface Send<T> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  /** What is wrong with the caller's arguments: the call fails with it at once and sends nothing. */
  argumentError?: ApiError | null;
  body?: unknown;
  params?: HttpParams;
  headers?: Record<string, string>;
  /** Turns the response into the result; throws when the answer is not what the contract promises. */
  read: (response: HttpResponse<unknown>) => T;
}

function invalidArgument(message: string): ApiError {
  return new ApiError(0, 'InvalidArgument', message);
}

function invalidId(id: number): ApiError | null {
  return invalidWholeNumber('id', id);
}

/** Like {@link invalidId}, for an optional count: `undefined` is fine (it is then not sent). */
function invalidCount(name: string, value: number | undefined): ApiError | null {
  return value === undefined ? null : invalidWholeNumber(name, value);
}

function invalidWholeNumber(name: string, value: number): ApiError | null {
  if (Number.isSafeInteger(value) && value >= 1) return null;
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

function toUser(response: HttpResponse<unknown>): User {
  const body = response.body;
  if (!isUser(body)) throw invalidResponse(response, 'not a user');
  return body;
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
