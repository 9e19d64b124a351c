import type { ErrorDetail } from './http-error.js';
import type { UserFields } from './repository.js';

/** Longest name, in characters (code points) after trimming. */
export const MAX_NAME_LENGTH = 100;
/** Longest e-mail address (the limit of RFC 5321's forward path). */
export const MAX_EMAIL_LENGTH = 254;

/**
 * A reasonable test for an address, not RFC 5322 in full: a local part of up to 64 characters without
 * spaces, quotes, brackets or separators, then a domain of letter/digit labels and a top-level
 * domain of two or more letters (internationalised domains arrive as punycode, `xn--...`). The same
 * rule as the showcase's in-memory backend.
 */
const EMAIL =
  /^[^\s@"<>()[\],;:\\]{1,64}@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/i;
/** Control characters (NUL included, which PostgreSQL's text cannot even store). */
const CONTROL = /\p{Cc}/u;

/** The JSON schema of a user body (create and replace), checked by Fastify before the handler runs. */
export const USER_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'email'],
  properties: {
    id: { type: 'integer' },
    // Generous raw bounds (before trimming); the exact rules are validateUserFields'.
    name: { type: 'string', maxLength: 1000 },
    email: { type: 'string', maxLength: 1000 },
  },
} as const;

/** The JSON schema of a JSON Merge Patch of a user: any subset, `null` refused by validateUserFields. */
export const USER_PATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    name: { type: ['string', 'null'], maxLength: 1000 },
    email: { type: ['string', 'null'], maxLength: 1000 },
  },
} as const;

/** The outcome of {@link validateUserFields}: clean fields, or one detail per problem. */
export type UserFieldsCheck =
  | { readonly ok: true; readonly fields: Partial<UserFields> }
  | { readonly ok: false; readonly details: readonly ErrorDetail[] };

/**
 * The rules JSON schema cannot say, on a body that passed the schema, returning the fields trimmed
 * or every problem at once (so a form can mark all its fields):
 * - `name`: 1 to 100 characters after trimming, no control characters;
 * - `email`: well-formed, at most 254 characters after trimming;
 * - in a patch, `null` (remove) is refused, since both fields are required;
 * - `id`: the server assigns it, so a create must not send one; a replace or patch may, but only
 *   the id in the path.
 * E-mail uniqueness needs the database and is checked there.
 *
 * @example
 * const check = validateUserFields(request.body, 'replace', 7);
 */
export function validateUserFields(
  body: Readonly<Record<string, unknown>>,
  mode: 'create' | 'replace' | 'patch',
  pathId?: number,
): UserFieldsCheck {
  const details: ErrorDetail[] = [];
  const fields: { name?: string; email?: string } = {};
  const has = (key: string) => Object.prototype.hasOwnProperty.call(body, key);

  if (has('id')) {
    if (mode === 'create') details.push({ target: 'id', message: 'is assigned by the server; leave it out' });
    else if (body['id'] !== pathId)
      details.push({ target: 'id', message: `must match the id in the path (${pathId})` });
  }
  for (const field of ['name', 'email'] as const) {
    if (!has(field)) continue;
    const value = body[field];
    if (typeof value !== 'string') {
      details.push({ target: field, message: 'is required and cannot be removed' });
      continue;
    }
    const text = value.trim();
    const problem = field === 'name' ? checkName(text) : checkEmail(text);
    if (problem) details.push({ target: field, message: problem });
    else fields[field] = text;
  }
  return details.length > 0 ? { ok: false, details } : { ok: true, fields };
}

function checkName(name: string): string | null {
  if (!name.isWellFormed()) return 'must be valid Unicode text';
  if (CONTROL.test(name)) return 'must not contain control characters';
  // Characters as people count them: an emoji or a CJK character outside the BMP is one, not two.
  const length = [...name].length;
  if (length === 0) return 'must not be empty';
  return length > MAX_NAME_LENGTH ? `must be at most ${MAX_NAME_LENGTH} characters long` : null;
}

function checkEmail(email: string): string | null {
  if (email === '') return 'must not be empty';
  if (!email.isWellFormed() || CONTROL.test(email)) return 'is not a well-formed e-mail address';
  if (email.length > MAX_EMAIL_LENGTH) return `must be at most ${MAX_EMAIL_LENGTH} characters long`;
  return EMAIL.test(email) ? null : 'is not a well-formed e-mail address';
}
