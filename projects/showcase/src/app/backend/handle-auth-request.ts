import type { HttpRequest } from '@angular/common/http';
import type { ResponseOptions } from 'angular-in-memory-web-api';

import { createDemoRefreshToken, readDemoRefreshTokenExpiry } from './demo-refresh-token';
import { signDemoJwt } from './demo-jwt';
import { type DemoErrorDetail, errorResponse, jsonResponse, noContentResponse } from './demo-response';
import type { DemoAccount, DemoServerState } from './demo-server-state';
import { readJsonBody } from './read-json-body';

/** The endpoints under `/auth`. */
export type AuthEndpoint = 'login' | 'refresh' | 'logout';

/**
 * Answers `POST /auth/login`, `/auth/refresh` and `/auth/logout` (the router has checked the method).
 *
 * - login: `{ username, password }` of a `DemoServerState.accounts` entry → 200 `{ accessToken }`
 *   and a new refresh token; wrong credentials → 401 `InvalidCredentials`; a missing or non-string
 *   field → 400 `InvalidRequest` with one detail per field.
 * - refresh: counted in `refreshCalls` whatever the outcome; the current refresh token (or the body's
 *   `{ refreshToken }`, checked instead when present) → 200 `{ accessToken }` and the refresh token
 *   rotated; expired, revoked or unknown → 401 `InvalidRefreshToken`. A client of the body flow also
 *   gets the rotated token back as `refreshToken`, since it has no cookie to receive it in.
 * - logout: revokes the refresh token → 204, signed in or not (signing out never fails).
 *
 * The refresh token stands in for the contract's `Set-Cookie: refreshToken=...; HttpOnly`: a mock
 * running in the browser cannot set a real HttpOnly cookie, so it stays in `DemoServerState`, where
 * the app's code never reads it, and "travels" with every refresh call the way the cookie would.
 *
 * @usageNotes
 * ```ts
 * if (request.method === 'POST') return handleAuthRequest('login', request, state, Date.now());
 * ```
 */
export function handleAuthRequest(
  endpoint: AuthEndpoint,
  request: HttpRequest<unknown>,
  state: DemoServerState,
  nowMs: number,
): ResponseOptions {
  switch (endpoint) {
    case 'login':
      return login(request, state, nowMs);
    case 'refresh':
      state.refreshCalls.update((count) => count + 1);
      return refresh(request, state, nowMs);
    case 'logout':
      state.setRefreshToken(null);
      return noContentResponse();
  }
}

function login(request: HttpRequest<unknown>, state: DemoServerState, nowMs: number): ResponseOptions {
  const body = readJsonBody(request);
  if (!body) return notJson();
  const fields: Record<string, unknown> = isRecord(body.value) ? body.value : {};
  const details: DemoErrorDetail[] = [];
  for (const field of ['username', 'password'] as const) {
    const value = fields[field];
    if (value === undefined || value === null) details.push({ target: field, message: 'is required' });
    else if (typeof value !== 'string') details.push({ target: field, message: 'must be a string' });
  }
  if (details.length > 0) {
    return errorResponse(400, 'InvalidRequest', 'Send a username and a password, both as text.', { details });
  }
  const account = state.accounts.find(
    (candidate) => candidate.username === fields['username'] && candidate.password === fields['password'],
  );
  if (!account) return errorResponse(401, 'InvalidCredentials', 'The username or the password is wrong.');

  const nowSeconds = Math.floor(nowMs / 1000);
  // A login starts a new session: whatever refresh token this browser held before is replaced.
  const refreshExpiresAt = nowSeconds + wholeSeconds(state.refreshTokenLifetimeSeconds());
  state.setRefreshToken(createDemoRefreshToken(refreshExpiresAt), account.username);
  return jsonResponse(200, { accessToken: issueAccessToken(account, state, nowSeconds) });
}

function refresh(request: HttpRequest<unknown>, state: DemoServerState, nowMs: number): ResponseOptions {
  const body = readJsonBody(request);
  if (!body) return notJson();
  const fromBody = isRecord(body.value) && Object.prototype.hasOwnProperty.call(body.value, 'refreshToken');
  const presented = fromBody
    ? (body.value as Record<string, unknown>)['refreshToken']
    : state.currentRefreshToken()?.value;
  if (fromBody && typeof presented !== 'string') {
    return errorResponse(400, 'InvalidRequest', 'refreshToken must be a string.', {
      details: [{ target: 'refreshToken', message: 'must be a string' }],
    });
  }
  const current = state.currentRefreshToken();
  if (presented === undefined || current === null) {
    return invalidRefreshToken('There is no refresh token (signed out, or revoked); please sign in again.');
  }
  if (presented !== current.value) {
    return invalidRefreshToken('The refresh token is unknown or no longer valid; please sign in again.');
  }
  const nowSeconds = Math.floor(nowMs / 1000);
  const expiresAt = readDemoRefreshTokenExpiry(current.value);
  const account = state.accounts.find((candidate) => candidate.username === current.username);
  if (expiresAt === null || nowSeconds >= expiresAt || !account) {
    state.setRefreshToken(null);
    return invalidRefreshToken('The refresh token has expired; please sign in again.');
  }
  // Rotation: the token just used is replaced, so a copy of it that leaked is worth nothing now.
  const rotated = createDemoRefreshToken(expiresAt);
  state.setRefreshToken(rotated, account.username);
  const accessToken = issueAccessToken(account, state, nowSeconds);
  return jsonResponse(200, fromBody ? { accessToken, refreshToken: rotated } : { accessToken });
}

function issueAccessToken(account: DemoAccount, state: DemoServerState, nowSeconds: number): string {
  const jti = String(state.issueSerial());
  const exp = nowSeconds + wholeSeconds(state.tokenLifetimeSeconds());
  return signDemoJwt({ sub: account.username, iat: nowSeconds, exp, jti, role: account.role });
}

/** A lifetime the claims can carry: JWT times are whole seconds, and a token must live at least one. */
function wholeSeconds(lifetime: number): number {
  return Number.isFinite(lifetime) ? Math.max(1, Math.floor(lifetime)) : 1;
}

function invalidRefreshToken(message: string): ResponseOptions {
  return errorResponse(401, 'InvalidRefreshToken', message);
}

function notJson(): ResponseOptions {
  return errorResponse(400, 'InvalidRequest', 'The body is not valid JSON.', {
    details: [{ target: '', message: 'The body is not valid JSON.' }],
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
