import type { ErrorDetail } from './error-detail.js';
import { findInvisibleCharacter } from './find-invisible-character.js';

/** Longest name, in characters (code points) after trimming and NFC. */
export const MAX_NAME_LENGTH = 100;
/** Longest e-mail address, in UTF-16 code units after trimming and NFKC (RFC 5321's forward path). */
export const MAX_EMAIL_LENGTH = 254;

/**
 * A reasonable test for an address, not RFC 5322 in full: a local part of up to 64 characters without
 * spaces, quotes, brackets or separators, then a domain of letter/digit labels and a top-level
 * domain of two or more letters (internationalised domains arrive as punycode, `xn--...`).
 */
const EMAIL =
  /^[^\s@"<>()[\],;:\\]{1,64}@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/i;
/**
 * The scripts whose letters pass for each other (Cyrillic `а` U+0430 for Latin `a`, Greek `ο` U+03BF
 * for Latin `o`): a local part may use any one of them, never two (UTS #39's "single script" rule,
 * for these three).
 */
const LOOK_ALIKE_SCRIPTS = [/\p{Script=Latin}/u, /\p{Script=Greek}/u, /\p{Script=Cyrillic}/u] as const;
/** Control characters (NUL included, which PostgreSQL's text cannot even store). */
const CONTROL = /\p{Cc}/u;
/** A lone surrogate: text that is not well-formed UTF-16 (`String.prototype.isWellFormed`, portably). */
const LONE_SURROGATE = /\p{Cs}/u;

/** The fields of a user a client writes, as they are to be stored. */
export interface UserFields {
  readonly name: string;
  readonly email: string;
}

/** The outcome of {@link validateUserFields}: clean fields, or one detail per problem. */
export type UserFieldsCheck =
  | { readonly ok: true; readonly fields: Partial<UserFields> }
  | { readonly ok: false; readonly details: readonly ErrorDetail[] };

/**
 * Checks the body of a create (`POST`), replace (`PUT`) or merge patch (`PATCH`) of a user and
 * returns its fields as they are to be stored, or every problem at once (so a form can mark all its
 * fields):
 * - `name`: required, a string; trimmed and in Unicode normal form C (NFC, so `e` + U+0301 is `é`);
 *   1 to 100 characters; no control characters, no lone surrogates, no invisible format characters
 *   (`findInvisibleCharacter`, joiners inside words allowed);
 * - `email`: required, a string; trimmed and in compatibility form (NFKC, so fullwidth `ｊｏｓｅ＠…`
 *   is stored as `jose@…`), at most 254 characters, well-formed, no invisible format characters,
 *   and a local part that does not mix Latin, Greek and Cyrillic letters (`аda@…` with a Cyrillic
 *   `а` would be a second account next to `ada@…`; `иван@…` and `ada@…` are fine; the domain is
 *   ASCII or punycode already); uniqueness needs the store and is checked there, on `emailKey`
 *   (which also catches look-alikes in one script, such as an all-Cyrillic `сосо@…` next to `coco@…`);
 * - a patch checks only the fields it has, and `null` (remove, in merge patch) is refused, since
 *   both fields are required;
 * - `id`: the server assigns it, so a create must not send one; a replace or patch may, but only
 *   the id in the path (a body cannot move a user to another id).
 * Other fields are ignored (the reference server refuses them earlier, by JSON schema).
 *
 * @example
 * const check = validateUserFields(body, 'replace', 7);
 * if (!check.ok) return badRequest(check.details);
 */
export function validateUserFields(
  body: unknown,
  mode: 'create' | 'replace' | 'patch',
  pathId?: number,
): UserFieldsCheck {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, details: [{ target: '', message: 'The body must be a JSON object.' }] };
  }
  const record = body as Readonly<Record<string, unknown>>;
  const details: ErrorDetail[] = [];
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
    const check = field === 'name' ? checkName(value) : checkEmail(value);
    if (typeof check === 'string') fields[field] = check;
    else details.push({ target: field, message: check.problem });
  }
  return details.length > 0 ? { ok: false, details } : { ok: true, fields };
}

/** The name to store, or what is wrong with it. */
function checkName(value: string): string | { problem: string } {
  // Judged after trimming: what trim() takes away (white space, a leading byte-order mark) is never stored.
  const text = value.trim();
  if (LONE_SURROGATE.test(text)) return { problem: 'must be valid Unicode text' };
  if (CONTROL.test(text)) return { problem: 'must not contain control characters' };
  const invisible = findInvisibleCharacter(text, { inWords: true });
  if (invisible) return { problem: `must not contain invisible characters (${invisible})` };
  const name = text.normalize('NFC');
  // Characters as people count them: an emoji or a CJK character outside the BMP is one, not two.
  const length = [...name].length;
  if (length === 0) return { problem: 'must not be empty' };
  return length > MAX_NAME_LENGTH ? { problem: `must be at most ${MAX_NAME_LENGTH} characters long` } : name;
}

/** The address to store, or what is wrong with it. */
function checkEmail(value: string): string | { problem: string } {
  const text = value.trim();
  if (text === '') return { problem: 'must not be empty' };
  if (LONE_SURROGATE.test(text) || CONTROL.test(text)) return { problem: 'is not a well-formed e-mail address' };
  const invisible = findInvisibleCharacter(text, { inWords: false });
  if (invisible) return { problem: `must not contain invisible characters (${invisible})` };
  const email = text.normalize('NFKC');
  if (email.length > MAX_EMAIL_LENGTH) return { problem: `must be at most ${MAX_EMAIL_LENGTH} characters long` };
  if (!EMAIL.test(email)) return { problem: 'is not a well-formed e-mail address' };
  return mixesLookAlikeScripts(email.slice(0, email.lastIndexOf('@')))
    ? { problem: 'must not mix Latin, Greek and Cyrillic letters' }
    : email;
}

/** Whether `text` has letters of two or more of the Latin, Greek and Cyrillic scripts. */
function mixesLookAlikeScripts(text: string): boolean {
  const letters = [...text].filter((character) => /\p{L}/u.test(character));
  return LOOK_ALIKE_SCRIPTS.filter((script) => letters.some((letter) => script.test(letter))).length > 1;
}
