import type { DemoErrorDetail } from './demo-response';
import type { DemoUserFields } from './demo-user-store';

/** Longest name, in characters, after trimming. */
export const MAX_NAME_LENGTH = 100;
/** Longest e-mail address (the limit of RFC 5321's forward path). */
export const MAX_EMAIL_LENGTH = 254;

/**
 * A reasonable test for an address, not RFC 5322 in full: a local part of up to 64 characters without
 * spaces, quotes, brackets or separators, then a domain of letter/digit labels and a top-level
 * domain of two or more letters (internationalised domains arrive as punycode, `xn--...`).
 */
const EMAIL =
  /^[^\s@"<>()[\],;:\\]{1,64}@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/i;

/** The outcome of {@link validateUserFields}: clean fields, or one detail per problem. */
export type UserFieldsCheck =
  | { readonly ok: true; readonly fields: Partial<DemoUserFields> }
  | { readonly ok: false; readonly details: readonly DemoErrorDetail[] };

/**
 * Checks the body of a create (`POST`), replace (`PUT`) or merge patch (`PATCH`) of a user and
 * returns its fields trimmed, or every problem at once (so a form can mark all its fields):
 * - `name`: required, a string, 1 to 100 characters after trimming;
 * - `email`: required, a string, well-formed, at most 254 characters after trimming;
 * - a patch checks only the fields it has, and `null` (remove, in merge patch) is refused, since
 *   both fields are required;
 * - `id`: the server assigns it, so a create must not send one; a replace or patch may, but only
 *   the id in the path (a body cannot move a user to another id).
 * Other fields are ignored. E-mail uniqueness needs the store and is checked by the caller.
 *
 * @usageNotes
 * ```ts
 * const check = validateUserFields(body, 'replace', id);
 * if (!check.ok) return errorResponse(400, 'InvalidRequest', 'The user is not valid.', { details: check.details });
 * ```
 */
export function validateUserFields(
  body: unknown,
  mode: 'create' | 'replace' | 'patch',
  pathId?: number,
): UserFieldsCheck {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, details: [{ target: '', message: 'The body must be a JSON object.' }] };
  }
  const record = body as Record<string, unknown>;
  const details: DemoErrorDetail[] = [];
  const fields: { name?: string; email?: string } = {};
  const has = (key: string) => Object.prototype.hasOwnProperty.call(record, key);

  if (has('id')) {
    if (mode === 'create') details.push({ target: 'id', message: 'is assigned by the server; leave it out' });
    else if (record['id'] !== pathId)
      details.push({ target: 'id', message: `must match the id in the path (${pathId})` });
  }
  for (const field of ['name', 'email'] as const) {
    if (mode === 'patch' && !has(field)) continue;
    const value = record[field];
    if (value === undefined || value === null) {
      details.push({ target: field, message: mode === 'patch' ? 'is required and cannot be removed' : 'is required' });
      continue;
    }
    if (typeof value !== 'string') {
      details.push({ target: field, message: 'must be a string' });
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
  // Characters as people count them: an emoji or a CJK character outside the BMP is one, not two.
  const length = [...name].length;
  if (length === 0) return 'must not be empty';
  return length > MAX_NAME_LENGTH ? `must be at most ${MAX_NAME_LENGTH} characters long` : null;
}

function checkEmail(email: string): string | null {
  if (email === '') return 'must not be empty';
  if (email.length > MAX_EMAIL_LENGTH) return `must be at most ${MAX_EMAIL_LENGTH} characters long`;
  return EMAIL.test(email) ? null : 'is not a well-formed e-mail address';
}
