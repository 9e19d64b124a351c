import { describeDetails } from './describe-details.js';
import type { ErrorDetail } from './error-detail.js';

/**
 * The most validation details one answer lists. A legitimate form has a handful of fields; a body
 * of 1,900 unknown keys must not turn into 1,900 details (an answer ten times the request).
 */
export const MAX_ERROR_DETAILS = 10;

/**
 * The message and details of a 400 `InvalidRequest` for a request whose shape is wrong (missing,
 * unknown or mistyped fields): at most {@link MAX_ERROR_DETAILS} details, and the message says how
 * many more problems there were. `total` is how many there were, when the caller stopped
 * translating them after the first {@link MAX_ERROR_DETAILS}.
 *
 * @example
 * invalidRequest([{ target: 'extra', message: 'is not a known field' }]);
 * // { message: 'The request is not valid: extra is not a known field.', details: [...] }
 */
export function invalidRequest(
  problems: readonly ErrorDetail[],
  total: number = problems.length,
): {
  readonly message: string;
  readonly details: readonly ErrorDetail[];
} {
  const details = problems.slice(0, MAX_ERROR_DETAILS);
  const more = Math.max(total, problems.length) - details.length;
  const rest = more > 0 ? `; and ${more} more problem${more === 1 ? '' : 's'}` : '';
  // A detail that is a sentence of its own ends with a period already.
  return { message: `The request is not valid: ${describeDetails(details).replace(/\.$/, '')}${rest}.`, details };
}
