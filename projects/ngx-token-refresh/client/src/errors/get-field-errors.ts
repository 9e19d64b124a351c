import { ApiError } from './api-error';

/**
 * The field-level messages of an error, by field, ready to show next to form inputs: for
 * `details: [{ target: 'email', message: 'is already taken' }]` it returns
 * `{ email: ['is already taken'] }`. Errors without details (or that are no `ApiError`) give `{}`;
 * details without a target are under `''` (a message for the whole form).
 *
 * @usageNotes
 * ```ts
 * error: (error: ApiError) => {
 *   const fields = getFieldErrors(error);
 *   for (const [name, messages] of Object.entries(fields)) {
 *     form.get(name)?.setErrors({ server: messages.join(' ') });
 *   }
 * }
 * ```
 */
export function getFieldErrors(error: unknown): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  if (!(error instanceof ApiError)) return fields;
  for (const { target, message } of error.details) {
    // Own property only: a target such as '__proto__' must not reach the prototype.
    if (!Object.prototype.hasOwnProperty.call(fields, target)) {
      Object.defineProperty(fields, target, { value: [], enumerable: true, writable: true, configurable: true });
    }
    fields[target]?.push(message);
  }
  return fields;
}
