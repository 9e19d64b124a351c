import { BffError } from './bff-error';
import type { BffSession } from './bff-session';
import { isSessionKey } from './session-key';

/**
 * Throws `InvalidSession`, naming the first field that is wrong, unless `value` has the shape of a
 * {@link BffSession}. The stores check every record they are given: a record the database would keep in
 * part (a claim that JSON drops) or one that cannot expire (a lifetime that is not a number) is a bug to
 * report where it is written, not where another instance reads it.
 */
export function assertBffSession(value: unknown, where: string): asserts value is BffSession {
  const problem = problemOf(value);
  if (problem !== null) {
    throw new BffError('InvalidSession', `${where} got ${problem}`);
  }
}

function problemOf(value: unknown): string | null {
  if (!isRecord(value)) return `${describe(value)} instead of a session record`;
  const whose = (problem: string) => `a session record whose ${problem}`;
  const session = value as Record<keyof BffSession, unknown>;
  if (!isSessionKey(session.key))
    return whose('key is not 43 characters of base64url (the SHA-256 of the cookie value)');
  if (!Number.isSafeInteger(session.version) || (session.version as number) < 0) {
    return whose(`version is ${describe(session.version)} instead of a non-negative integer`);
  }
  for (const field of ['subject', 'accessToken', 'tokenType'] as const) {
    if (typeof session[field] !== 'string' || session[field] === '') {
      return whose(`${field} is ${describe(session[field])} instead of a non-empty string`);
    }
  }
  for (const field of ['refreshToken', 'idToken'] as const) {
    if (session[field] !== null && (typeof session[field] !== 'string' || session[field] === '')) {
      return whose(`${field} is ${describe(session[field])} instead of a non-empty string or null`);
    }
  }
  if (!isJsonObject(session.claims)) return whose('claims are not an object of JSON values');
  if (session.dpopKey !== null) {
    const key = session.dpopKey;
    if (!isRecord(key) || !isJsonObject(key['publicJwk']) || !isJsonObject(key['privateJwk'])) {
      return whose('dpopKey is neither null nor { publicJwk, privateJwk } of JSON objects');
    }
  }
  for (const field of ['accessTokenIssuedAt', 'accessTokenExpiresAt', 'createdAt', 'lastSeenAt'] as const) {
    if (!Number.isFinite(session[field]))
      return whose(`${field} is ${describe(session[field])} instead of a time in ms`);
  }
  for (const field of ['idleTimeout', 'absoluteTimeout'] as const) {
    if (!Number.isFinite(session[field]) || (session[field] as number) <= 0) {
      return whose(`${field} is ${describe(session[field])} instead of a positive number of ms`);
    }
  }
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A plain object whose values survive JSON unchanged (what a store can keep). */
function isJsonObject(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && Object.values(value).every(isJson);
}

function isJson(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJson);
  return isJsonObject(value);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value === '' ? 'an empty string' : 'a string';
  if (typeof value === 'number') return String(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value === 'undefined' ? 'missing' : `a ${typeof value}`;
}
