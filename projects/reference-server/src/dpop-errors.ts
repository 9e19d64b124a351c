import { HttpError } from './http-error.js';
import { DPOP_ALGORITHM, type DpopProblem } from './dpop-proofs.js';

/**
 * The `WWW-Authenticate` values of DPoP (RFC 9449 §7.1): the `DPoP` scheme, an `error` when there is
 * one, and `algs`, the proof algorithms accepted. `bearerOrDpop` is the challenge of DPOP=allowed to a
 * request without credentials: either scheme will do (RFC 9449 §7.2).
 *
 * @example
 * headers['WWW-Authenticate'] = DPOP_CHALLENGES.invalidToken; // 'DPoP error="invalid_token", algs="ES256"'
 */
export const DPOP_CHALLENGES = {
  missingToken: `DPoP algs="${DPOP_ALGORITHM}"`,
  bearerOrDpop: `Bearer, DPoP algs="${DPOP_ALGORITHM}"`,
  invalidToken: dpopChallenge('invalid_token'),
  insufficientScope: dpopChallenge('insufficient_scope'),
} as const;

/**
 * The `WWW-Authenticate` challenge for an error of a DPoP request.
 *
 * @example
 * dpopChallenge('use_dpop_nonce'); // 'DPoP error="use_dpop_nonce", algs="ES256"'
 */
export function dpopChallenge(error: string): string {
  return `DPoP error="${error}", algs="${DPOP_ALGORITHM}"`;
}

/**
 * The refusal of an API call's proof (RFC 9449 §7.1, §9): 401, `WWW-Authenticate: DPoP error="…"`,
 * the RFC's error code as the body's `code` too, and the current nonce in `DPoP-Nonce`, so that a
 * client told `use_dpop_nonce` can send the request again at once.
 *
 * @example
 * throw resourceProofError('use_dpop_nonce', 'it has no nonce', proofs.nonce());
 */
export function resourceProofError(problem: DpopProblem, reason: string, nonce: string): HttpError {
  return new HttpError(401, problem, describe(problem, reason), {
    headers: { 'WWW-Authenticate': dpopChallenge(problem), 'DPoP-Nonce': nonce },
  });
}

/**
 * The refusal of a token request's proof (login, refresh, logout; RFC 9449 §5, §8): 400, the RFC's
 * error code as the body's `code` (`{ "error": { "code": "use_dpop_nonce", "message": … } }`, the
 * server's error body), and the current nonce in `DPoP-Nonce`. Nothing of the session is touched:
 * no cookie set or cleared, no token rotated.
 *
 * @example
 * throw tokenRequestProofError('invalid_dpop_proof', 'its htm is not POST', proofs.nonce());
 */
export function tokenRequestProofError(problem: DpopProblem, reason: string, nonce: string): HttpError {
  return new HttpError(400, problem, describe(problem, reason), { headers: { 'DPoP-Nonce': nonce } });
}

function describe(problem: DpopProblem, reason: string): string {
  return problem === 'use_dpop_nonce'
    ? `Make a new DPoP proof with the nonce of the DPoP-Nonce header and send the request again: ${reason}.`
    : `The DPoP proof is not valid: ${reason}.`;
}
