import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** The server's DPoP nonces (RFC 9449 §8, §9); from {@link createDpopNonces}. */
export interface DpopNonces {
  /** The nonce to hand out now (`DPoP-Nonce`). */
  current(): string;
  /**
   * The time step of a nonce this server (or another instance sharing `JWT_SECRET`) handed out and
   * still accepts, or `null` for anything else: unknown, malformed, too old.
   */
  check(nonce: unknown): number | null;
  /**
   * When a proof carrying the nonce of `step` stops being accepted by any instance, in milliseconds
   * since the epoch: how long its `jti` must be remembered.
   */
  acceptedUntil(step: number): number;
}

/** A nonce is the MAC of a time step of this length. */
export const NONCE_STEP_MS = 60_000;
/**
 * How many steps back a nonce is still accepted: one handed out at the very end of a step lives two
 * more, one handed out at its start three; 2 to 3 minutes, then the client gets a new one.
 */
const PAST_STEPS = 2;
/** A nonce of the next step is accepted too: another instance's clock may run a little ahead. */
const FUTURE_STEPS = 1;
/**
 * Clock skew tolerated between instances sharing the database, in milliseconds: a proof's `jti` is
 * remembered this much longer than its nonce lives, for an instance whose clock runs behind.
 */
const INSTANCE_SKEW_MS = 30_000;
/** HKDF's `info`: the nonce key is a key of its own, never the JWT key itself. */
const KEY_INFO = 'reference-server dpop nonce v1';
/** Inside the MAC, so that no other HMAC this key might ever make can pass for a nonce. */
const DOMAIN_TAG = Buffer.from('dpop-nonce/v1\0', 'utf8');
/** An HMAC-SHA256 in base64url. */
const NONCE_LENGTH = 43;

/**
 * Stateless nonces: `base64url(HMAC-SHA256(nonceKey, domainTag || uint64be(step)))`, where `step` is
 * the server's clock in whole minutes ({@link NONCE_STEP_MS}) and the key comes from `jwtSecret`
 * through HKDF-SHA256. So every instance sharing `JWT_SECRET` hands out and accepts the same nonces
 * with nothing stored or shared, and a nonce proves that the proof was made after the server's clock
 * reached its step: proofs are fresh by the server's clock, whatever the client's (RFC 9449 §11.2).
 * `now` is the clock in milliseconds, injectable for tests.
 *
 * @example
 * const nonces = createDpopNonces(config.jwtSecret, Date.now);
 * reply.header('DPoP-Nonce', nonces.current());
 * nonces.check(proof.nonce); // its step, or null
 */
export function createDpopNonces(jwtSecret: Uint8Array, now: () => number): DpopNonces {
  const key = Buffer.from(hkdfSync('sha256', jwtSecret, Buffer.alloc(0), KEY_INFO, 32));
  // The few steps in use: each nonce is made once, not once per request.
  const made = new Map<number, Buffer>();
  const nonceOf = (step: number): Buffer => {
    let nonce = made.get(step);
    if (nonce === undefined) {
      const counter = Buffer.alloc(8);
      counter.writeBigUInt64BE(BigInt(step));
      nonce = Buffer.from(createHmac('sha256', key).update(DOMAIN_TAG).update(counter).digest('base64url'), 'latin1');
      if (made.size >= 8) made.delete(made.keys().next().value as number);
      made.set(step, nonce);
    }
    return nonce;
  };
  const stepNow = () => Math.floor(now() / NONCE_STEP_MS);

  return {
    current: () => nonceOf(stepNow()).toString('latin1'),

    check(nonce) {
      if (typeof nonce !== 'string' || nonce.length !== NONCE_LENGTH) return null;
      const presented = Buffer.from(nonce, 'latin1');
      const step = stepNow();
      for (let candidate = step + FUTURE_STEPS; candidate >= step - PAST_STEPS; candidate--) {
        if (timingSafeEqual(presented, nonceOf(candidate))) return candidate;
      }
      return null;
    },

    acceptedUntil: (step) => (step + PAST_STEPS + 1) * NONCE_STEP_MS + INSTANCE_SKEW_MS,
  };
}
