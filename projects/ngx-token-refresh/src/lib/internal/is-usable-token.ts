/** Visible ASCII only: anything else would break the header, or hints at a mistake such as `'Bearer x'`. */
const USABLE_TOKEN = /^[\x21-\x7e]+$/;

/** Whether `token` can go into an `Authorization` header as it is: a non-empty string of visible ASCII. */
export function isUsableToken(token: unknown): token is string {
  return typeof token === 'string' && USABLE_TOKEN.test(token);
}
