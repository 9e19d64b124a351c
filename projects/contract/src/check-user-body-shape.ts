import type { ErrorDetail } from './error-detail.js';

/** The fields a user body may have; `id` is tolerated (a client may send back what it read). */
const KNOWN_FIELDS = ['id', 'name', 'email'] as const;
/** Raw bound on a string field before the exact rules of `validateUserFields`, in code points. */
const MAX_RAW_LENGTH = 1000;

/**
 * The shape of a user body, checked before its content: a JSON object, `name` and `email` present
 * (not in a patch), no other field than `id`, `name` and `email`, strings (or `null` in a patch)
 * of at most 1,000 characters, an integer `id`. Every problem, in the order the reference server's
 * JSON schema reports them (required, unknown, then each field's type): the schema is what the
 * server runs and documents; this is the same rule for a backend without one, and the server's
 * suite checks that both give the same details.
 *
 * @example
 * checkUserBodyShape({ name: 'Ada', extra: 1 }, 'create');
 * // [{ target: 'email', message: 'is required' }, { target: 'extra', message: 'is not a known field' }]
 */
export function checkUserBodyShape(body: unknown, mode: 'create' | 'replace' | 'patch'): ErrorDetail[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return [{ target: '', message: 'The body must be a JSON object.' }];
  }
  const fields = body as Record<string, unknown>;
  const has = (name: string) => Object.prototype.hasOwnProperty.call(fields, name);
  const problems: ErrorDetail[] = [];
  if (mode !== 'patch') {
    for (const name of ['name', 'email']) if (!has(name)) problems.push({ target: name, message: 'is required' });
  }
  for (const name of Object.keys(fields)) {
    if (!(KNOWN_FIELDS as readonly string[]).includes(name)) {
      problems.push({ target: name.slice(0, 100), message: 'is not a known field' });
    }
  }
  if (has('id') && !Number.isInteger(fields['id'])) problems.push({ target: 'id', message: 'must be an integer' });
  for (const name of ['name', 'email']) {
    if (!has(name)) continue;
    const value = fields[name];
    if (typeof value === 'string') {
      if ([...value].length > MAX_RAW_LENGTH) {
        problems.push({ target: name, message: `must be at most ${MAX_RAW_LENGTH} characters long` });
      }
    } else if (!(mode === 'patch' && value === null)) {
      problems.push({ target: name, message: 'must be a string' });
    }
  }
  return problems;
}
