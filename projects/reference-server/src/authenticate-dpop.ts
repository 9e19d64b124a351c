import type { FastifyReply, FastifyRequest } from 'fastify';

import { BEARER_CHALLENGES } from '#contract';

import type { AccessTokenClaims, AccessTokens } from './access-tokens.js';
import { DPOP_CHALLENGES, resourceProofError } from './dpop-errors.js';
import type { DpopProofs } from './dpop-proofs.js';
import { HttpError } from './http-error.js';
import { readAuthorization } from './read-authorization.js';

/** An API call whose credentials passed: the token's claims, and the scheme they came with. */
export interface AuthenticatedCall {
  readonly claims: AccessTokenClaims;
  readonly scheme: 'Bearer' | 'DPoP';
}

/** The check of an API call's credentials with DPoP on; from {@link createDpopAuthenticate}. */
export type DpopAuthenticate = (request: FastifyRequest, reply: FastifyReply) => Promise<AuthenticatedCall>;

/**
 * The check of an API call with DPOP=allowed or required, in place of `authenticate` (which DPOP=off
 * keeps, synchronous and unchanged). Returns the token's claims or throws the 401 to send:
 *
 * - `Authorization: DPoP <token>` with a `DPoP` proof (both modes): the proof (see
 *   {@link DpopProofs.check}, `ath` included; `invalid_dpop_proof`, or `use_dpop_nonce` when its nonce
 *   is missing or stale, each with `DPoP-Nonce`), then the token (`InvalidToken`, `TokenExpired`),
 *   which must be bound (`cnf.jkt`) to the proof's key (`InvalidToken` otherwise), then the replay
 *   check, last, so only proofs that passed everything else reach the database (`invalid_dpop_proof`).
 *   A success brings `DPoP-Nonce` when the proof's nonce was not the current one.
 * - `Authorization: Bearer <token>`: with DPOP=allowed, as without DPoP, except that a token bound
 *   to a key is refused (RFC 9449 §7.2: whoever sends it without a proof may have stolen it); with
 *   DPOP=required, refused.
 *
 * Every challenge names the scheme the token needs: `DPoP error="…", algs="ES256"` for DPoP and bound
 * tokens, `Bearer error="invalid_token"` for a Bearer token that is invalid or expired (DPOP=allowed),
 * and to a call without credentials `Bearer, DPoP algs="ES256"` (allowed) or `DPoP algs="ES256"`.
 *
 * @example
 * const authenticate = createDpopAuthenticate({ mode: 'required', accessTokens, proofs });
 * const { claims } = await authenticate(request, reply);
 */
export function createDpopAuthenticate(options: {
  readonly mode: 'allowed' | 'required';
  readonly accessTokens: AccessTokens;
  readonly proofs: DpopProofs;
}): DpopAuthenticate {
  const { mode, accessTokens, proofs } = options;
  const allowed = mode === 'allowed';
  const refuseToken = (code: string, message: string, challenge: string) =>
    new HttpError(401, code, message, { headers: { 'WWW-Authenticate': challenge } });
  const verify = (token: string, challenge: string): AccessTokenClaims => {
    const check = accessTokens.verify(token);
    if (check.ok) return check.claims;
    throw check.problem === 'expired'
      ? refuseToken('TokenExpired', 'The access token has expired.', challenge)
      : refuseToken('InvalidToken', 'The access token is not valid.', challenge);
  };

  return async (request, reply) => {
    const credentials = readAuthorization(request.headers.authorization);
    if (credentials === null) {
      throw refuseToken(
        'Unauthorized',
        allowed
          ? 'Sign in first: this call needs an access token (Authorization: DPoP <token> with a DPoP proof, or Bearer <token>).'
          : 'Sign in first: this call needs an access token (Authorization: DPoP <token> with a DPoP proof).',
        allowed ? DPOP_CHALLENGES.bearerOrDpop : DPOP_CHALLENGES.missingToken,
      );
    }
    const { scheme, token } = credentials;
    if (scheme === null) {
      throw refuseToken(
        'InvalidToken',
        `The Authorization header must be "DPoP <access token>"${allowed ? ' or "Bearer <access token>"' : ''}.`,
        allowed ? `${BEARER_CHALLENGES.invalidToken}, ${DPOP_CHALLENGES.missingToken}` : DPOP_CHALLENGES.invalidToken,
      );
    }

    if (scheme === 'Bearer') {
      if (!allowed) {
        throw refuseToken(
          'InvalidToken',
          'This server accepts DPoP-bound access tokens only: send Authorization: DPoP <token> with a DPoP proof.',
          DPOP_CHALLENGES.invalidToken,
        );
      }
      const claims = verify(token, BEARER_CHALLENGES.invalidToken);
      if (claims.jkt !== null) {
        throw refuseToken(
          'InvalidToken',
          'This access token is bound to a DPoP key: send it as Authorization: DPoP <token> with a proof made with that key.',
          DPOP_CHALLENGES.invalidToken,
        );
      }
      return { claims, scheme };
    }

    if (request.headers['dpop'] === undefined) {
      throw resourceProofError('invalid_dpop_proof', 'a DPoP token needs a DPoP proof', proofs.nonce());
    }
    const check = proofs.check(request, token);
    if (!check.ok) throw resourceProofError(check.problem, check.reason, proofs.nonce());
    const { proof } = check;
    // From here on every answer, success or not, brings the current nonce if the proof's was older.
    proofs.sendNonce(reply, proof);
    const claims = verify(token, DPOP_CHALLENGES.invalidToken);
    if (claims.jkt === null) {
      throw refuseToken(
        'InvalidToken',
        'This access token is not bound to a DPoP key: send it as Authorization: Bearer <token>.',
        DPOP_CHALLENGES.invalidToken,
      );
    }
    if (claims.jkt !== proof.jkt) {
      throw refuseToken(
        'InvalidToken',
        'The DPoP proof is made with another key than the one the access token is bound to.',
        DPOP_CHALLENGES.invalidToken,
      );
    }
    if (!(await proofs.record(proof))) {
      throw resourceProofError(
        'invalid_dpop_proof',
        'it was used before (each request needs a new proof)',
        proofs.nonce(),
      );
    }
    return { claims, scheme };
  };
}
