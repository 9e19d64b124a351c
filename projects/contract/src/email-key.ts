/**
 * The key under which an e-mail address is unique: two addresses with the same key are one address,
 * and the second cannot be created (409 `Conflict`). It is the address in Unicode compatibility form
 * (NFKC: fullwidth `ｊｏｓｅ` is `jose`, NFD `jose\u0301` is NFC `josé`), case-folded as a whole
 * (upper then lower case, a close approximation of Unicode's NFKC_Casefold: `JOSÉ`, `josé` and `José`
 * are one, and so are `ß` and `ss`), and in compatibility form again, since case mapping can undo it.
 *
 * Case-insensitive local parts are what every common mail provider does, and the only choice
 * that keeps look-alike accounts apart; the stored address keeps the case its owner typed.
 *
 * @example
 * emailKey('José@Example.com') === emailKey('ｊｏｓｅ\u0301@example.com'); // true: 'josé@example.com'
 */
export function emailKey(email: string): string {
  return email.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}
