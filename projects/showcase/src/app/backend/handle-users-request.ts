import type { HttpRequest } from '@angular/common/http';
import type { ResponseOptions } from 'angular-in-memory-web-api';

import {
  BEARER_CHALLENGES,
  checkUserBodyShape,
  describeDetails,
  invalidRequest,
  locatePage,
  negotiateVersion,
  parseWholeNumber,
  readPaging,
  validateUserFields,
} from '#contract';

import { authenticateRequest } from './authenticate-request';
import { errorResponse, jsonResponse, noContentResponse } from './demo-response';
import type { DemoServerState } from './demo-server-state';
import type { DemoUserFields, DemoUserStore } from './demo-user-store';
import { readJsonBody } from './read-json-body';

/** The media type of version 1 of the users API, for the `Accept` versioning style. */
export const USERS_V1_MEDIA_TYPE = 'application/vnd.showcase.v1+json';

/** Where a users call landed, as the router found it. */
export interface UsersRoute {
  /** The collection's path, used in `Location`: `/api/v1/users`, or `/api/users` when `Accept` versions. */
  readonly collectionPath: string;
  /** The raw `{id}` segment, or `null` for the collection. */
  readonly id: string | null;
  /** `'accept'` when the version comes from the `Accept` header (`/api/users`), `'path'` for `/api/v1/users`. */
  readonly versioning: 'path' | 'accept';
  /** The query string. */
  readonly query: URLSearchParams;
}

/** The vendor of the `Accept` media type, as the reference server's `API_VENDOR` defaults to. */
const API_VENDOR = 'showcase';
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const MERGE_PATCH = 'application/merge-patch+json';

/**
 * Answers the users API (version 1) on an already routed request, checking in the order a real
 * server would: method (405), version by `Accept` (406), access token (401), role for writes (403),
 * id (400), media type of the body (415: JSON, a merge patch for PATCH), the body of a write (400: JSON, then its shape, then its
 * fields), then the operation itself (404, 409 for a taken e-mail).
 *
 * | op | method | success |
 * |---|---|---|
 * | list | GET /users | plain array; with `page`/`pageSize`, `{ data, pagination }` (page 1, size 10 by default, at most 100) |
 * | get | GET /users/{id} | 200 user |
 * | create | POST /users | 201 user, `Location: {collection}/{id}` |
 * | replace | PUT /users/{id} | 204 |
 * | patch | PATCH /users/{id}, `application/merge-patch+json` | 200 updated user |
 * | delete | DELETE /users/{id} | 204 |
 *
 * @usageNotes
 * ```ts
 * return handleUsersRequest(request, { collectionPath: '/api/v1/users', id: '7', versioning: 'path', query }, store, state, Date.now());
 * ```
 */
export function handleUsersRequest(
  request: HttpRequest<unknown>,
  route: UsersRoute,
  store: DemoUserStore,
  state: DemoServerState,
  nowMs: number,
): ResponseOptions {
  const method = request.method.toUpperCase();
  const allowed = route.id === null ? ['GET', 'POST'] : ['GET', 'PUT', 'PATCH', 'DELETE'];
  if (!allowed.includes(method)) {
    return errorResponse(405, 'MethodNotAllowed', `${method} is not allowed here; use ${allowed.join(', ')}.`, {
      headers: { Allow: allowed.join(', ') },
    });
  }
  if (route.versioning === 'accept') {
    const negotiated = negotiateVersion(request.headers.getAll('Accept') ?? [], API_VENDOR);
    if (!negotiated.ok) return errorResponse(406, 'NotAcceptable', negotiated.message);
  }
  const authentication = authenticateRequest(request, state, nowMs);
  if (!authentication.ok) return authentication.response;
  const { claims } = authentication;
  if (WRITES.has(method) && claims.role !== 'admin') {
    return errorResponse(
      403,
      'Forbidden',
      `Only an admin may change users; ${claims.sub} is signed in as a ${claims.role}.`,
      { headers: { 'WWW-Authenticate': BEARER_CHALLENGES.insufficientScope } },
    );
  }
  // Answers carry the media type that was asked for, as content negotiation promises.
  const mediaType = route.versioning === 'accept' ? USERS_V1_MEDIA_TYPE : 'application/json';
  const ok = (status: number, body: object, headers: Record<string, string> = {}) =>
    jsonResponse(status, body, { ...headers, 'Content-Type': mediaType });

  if (route.id === null) {
    if (method === 'GET') return list(route.query, store, ok);
    return mediaTypeOf(request) === 'application/json' ? create(request, route, store, ok) : notJson();
  }
  const id = parseWholeNumber(route.id);
  if (id === null) {
    return errorResponse(400, 'InvalidRequest', 'The user id must be a whole number from 1.', {
      details: [{ target: 'id', message: 'must be a whole number from 1' }],
    });
  }
  if (method === 'PATCH' && mediaTypeOf(request) !== MERGE_PATCH) {
    return errorResponse(
      415,
      'UnsupportedMediaType',
      'A PATCH must be a JSON Merge Patch (Content-Type: application/merge-patch+json).',
    );
  }
  if (method === 'PUT' && mediaTypeOf(request) !== 'application/json') return notJson();
  const notFound = () => errorResponse(404, 'NotFound', `There is no user with id ${id}.`);

  switch (method) {
    case 'GET': {
      const existing = store.find(id);
      return existing ? ok(200, existing) : notFound();
    }
    case 'DELETE':
      if (!store.find(id)) return notFound();
      store.remove(id);
      return noContentResponse();
    case 'PUT':
    case 'PATCH':
    default: {
      // The body first, as the server checks it before looking the user up.
      const written = write(request, method === 'PUT' ? 'replace' : 'patch', store, id);
      if (!written.ok) return written.response;
      const existing = store.find(id);
      if (!existing) return notFound();
      const user = store.update(id, { ...existing, ...written.fields });
      // PUT answers 204 as the contract says; the merge patch shows what the patch made of the user.
      return method === 'PUT' || !user ? noContentResponse() : ok(200, user);
    }
  }
}

type Answer = (status: number, body: object, headers?: Record<string, string>) => ResponseOptions;

function list(query: URLSearchParams, store: DemoUserStore, ok: Answer): ResponseOptions {
  const paging = readPaging((name) => query.getAll(name));
  if (!paging.ok) {
    return errorResponse(400, 'InvalidRequest', `Invalid paging: ${describeDetails(paging.details)}.`, {
      details: paging.details,
    });
  }
  if (paging.page === null) return ok(200, store.slice());
  const { start, pagination } = locatePage(paging.page, store.size);
  return ok(200, { data: start < store.size ? store.slice(start, start + pagination.pageSize) : [], pagination });
}

function create(request: HttpRequest<unknown>, route: UsersRoute, store: DemoUserStore, ok: Answer): ResponseOptions {
  const written = write(request, 'create', store);
  if (!written.ok) return written.response;
  const user = store.insert(written.fields);
  return ok(201, user, { Location: `${route.collectionPath}/${user.id}` });
}

/** Reads and checks the body of a write, including the uniqueness of the e-mail address. */
function write(
  request: HttpRequest<unknown>,
  mode: 'create' | 'replace' | 'patch',
  store: DemoUserStore,
  id?: number,
): { readonly ok: false; readonly response: ResponseOptions } | { readonly ok: true; readonly fields: DemoUserFields } {
  const body = readJsonBody(request);
  if (!body) {
    return refuse(400, 'InvalidRequest', 'The body is not valid JSON.', {
      details: [{ target: '', message: 'is not valid JSON' }],
    });
  }
  const shape = checkUserBodyShape(body.value, mode);
  if (shape.length > 0) {
    const { message, details } = invalidRequest(shape);
    return refuse(400, 'InvalidRequest', message, { details });
  }
  const check = validateUserFields(body.value, mode, id);
  if (!check.ok) {
    return refuse(400, 'InvalidRequest', `The user is not valid: ${describeDetails(check.details)}.`, {
      details: check.details,
    });
  }
  const { email } = check.fields;
  if (email !== undefined && store.isEmailTaken(email, id)) {
    return refuse(409, 'Conflict', `The e-mail address ${email} is already taken.`, {
      details: [{ target: 'email', message: 'is already taken' }],
    });
  }
  // validateUserFields guarantees both fields outside a patch; a patch is merged over the stored user.
  return { ok: true, fields: check.fields as DemoUserFields };
}

/**
 * The media type the body travels as, without parameters: the `Content-Type` the caller set, else
 * the one HttpClient's real backends would send for this body (JSON for an object, text for a string).
 */
function mediaTypeOf(request: HttpRequest<unknown>): string {
  const contentType = request.headers.get('Content-Type') ?? request.detectContentTypeHeader() ?? '';
  return contentType.split(';')[0]?.trim().toLowerCase() ?? '';
}

function notJson(): ResponseOptions {
  return errorResponse(415, 'UnsupportedMediaType', 'Send the user as JSON (Content-Type: application/json).');
}

function refuse(...args: Parameters<typeof errorResponse>) {
  return { ok: false, response: errorResponse(...args) } as const;
}
