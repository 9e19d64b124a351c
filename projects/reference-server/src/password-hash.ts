import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * scrypt cost parameters of new hashes: N = 2^14, r = 8, p = 1 (16 MiB, some tens of milliseconds),
 * the minimum OWASP's password storage cheat sheet lists for scrypt. They are stored in each hash,
 * so raising them later keeps old hashes verifiable.
 */
const COST = { N: 2 ** 14, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/**
 * What no password may contain: control characters (Node's scrypt drops trailing NULs, so
 * `lovelace\0` would pass for `lovelace`) and lone surrogates (UTF-8 turns every one of them into
 * U+FFFD, so two different texts would hash alike).
 */
const UNUSABLE = /[\p{Cc}\p{Cs}]/u;
const FORMAT = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9+/=]{1,100})\$([A-Za-z0-9+/=]{1,200})$/;

/**
 * Hashes a password with scrypt and a random salt: `scrypt$N$r$p$salt$hash` (base64).
 *
 * @example
 * await hashPassword('lovelace'); // 'scrypt$16384$8$1$...$...'
 */
export async function hashPassword(password: string): Promise<string> {
  if (UNUSABLE.test(password)) throw new Error('A password must not contain control characters or lone surrogates.');
  const salt = randomBytes(SALT_LENGTH);
  const hash = await derive(password, salt, COST.N, COST.r, COST.p);
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/**
 * Whether `password` matches `stored`, compared in constant time. A malformed `stored` is a
 * mismatch, never an exception. A password with control characters or lone surrogates never
 * matches (no stored hash can be of one, see {@link hashPassword}), after the same scrypt work, so
 * it answers exactly like a wrong password.
 *
 * @example
 * if (!(await verifyPassword(body.password, account.passwordHash))) throw invalidCredentials();
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = FORMAT.exec(stored);
  if (!match) return false;
  const [, n, r, p, salt, hash] = match as unknown as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64');
  if (expected.length === 0) return false;
  let actual: Buffer;
  try {
    actual = await derive(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p), expected.length);
  } catch {
    return false;
  }
  return timingSafeEqual(actual, expected) && !UNUSABLE.test(password);
}

function derive(password: string, salt: Buffer, N: number, r: number, p: number, length = KEY_LENGTH) {
  return new Promise<Buffer>((resolve, reject) => {
    // NFC: the same password typed on two keyboards (composed or decomposed accents) is the same.
    scrypt(password.normalize('NFC'), salt, length, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}
