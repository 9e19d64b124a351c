import { negotiateVersion } from '#contract';

import { HttpError } from './http-error.js';

/**
 * The contract's content negotiation of the `Accept`-versioned users API on a Fastify header:
 * `null` when `Accept` names version 1, else the 406 `NotAcceptable` to throw.
 *
 * @example
 * const refusal = negotiateAcceptHeader(request.headers.accept, 'showcase');
 * if (refusal) throw refusal;
 */
export function negotiateAcceptHeader(accept: string | string[] | undefined, vendor: string): HttpError | null {
  const answer = negotiateVersion(Array.isArray(accept) ? accept : [accept ?? ''], vendor);
  return answer.ok ? null : new HttpError(406, 'NotAcceptable', answer.message);
}
