import type { FastifyReply, FastifyRequest } from 'fastify';

import { tokenRequestProofError } from './dpop-errors.js';
import type { DpopProofs } from './dpop-proofs.js';

/**
 * The DPoP check of a token request (`POST /auth/login`, `POST /auth/refresh`); from
 * {@link createProveDpopKey}. Resolves to the thumbprint of the key the request proved, or `null`
 * when it came without a proof (and may: DPOP=allowed).
 */
export type ProveDpopKey = (request: FastifyRequest, reply: FastifyReply) => Promise<string | null>;

/**
 * The check of a token request's proof (RFC 9449 §5): no `ath` (no access token goes with it), the
 * rest as for an API call, replay included. A refusal is a 400 with the RFC's code in the server's
 * error body and `DPoP-Nonce` (see dpop-errors.ts): `use_dpop_nonce` (send it again with that nonce),
 * `invalid_dpop_proof` (a wrong proof, a replayed one, or none with DPOP=required). It runs before
 * anything of the session is touched, so a refusal never ends, rotates or clears anything. A success
 * brings `DPoP-Nonce` when the proof's nonce was not the current one.
 *
 * @example
 * const proveKey = createProveDpopKey({ mode: config.dpop, proofs });
 * const jkt = await proveKey(request, reply);
 */
export function createProveDpopKey(options: {
  readonly mode: 'allowed' | 'required';
  readonly proofs: DpopProofs;
}): ProveDpopKey {
  const { mode, proofs } = options;
  return async (request, reply) => {
    if (request.headers['dpop'] === undefined) {
      if (mode === 'allowed') return null;
      throw tokenRequestProofError('invalid_dpop_proof', 'there is none, and this server requires one', proofs.nonce());
    }
    const check = proofs.check(request, null);
    if (!check.ok) throw tokenRequestProofError(check.problem, check.reason, proofs.nonce());
    if (!(await proofs.record(check.proof))) {
      throw tokenRequestProofError(
        'invalid_dpop_proof',
        'it was used before (each request needs a new proof)',
        proofs.nonce(),
      );
    }
    proofs.sendNonce(reply, check.proof);
    return check.proof.jkt;
  };
}
