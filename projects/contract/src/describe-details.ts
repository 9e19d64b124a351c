import type { ErrorDetail } from './error-detail.js';

/**
 * The details of an error as one sentence, for its `message`: `"name is required; email must be a
 * string"`. A detail about the request as a whole (no target) is its message alone.
 *
 * @example
 * describeDetails([{ target: 'name', message: 'is required' }]); // 'name is required'
 */
export function describeDetails(details: readonly ErrorDetail[]): string {
  return details.map(({ target, message }) => (target ? `${target} ${message}` : message)).join('; ');
}
