/** Digits, no sign, no leading zero, no exponent, at most 15 digits (so always a safe integer). */
const WHOLE_NUMBER = /^[1-9]\d{0,14}$/;

/**
 * A user id or a paging parameter as it arrives in a path or query: a whole number from 1 written
 * plainly, else `null` (`0`, `-1`, `01`, `1e3`, `1.0`, ` 1`, and anything of 16 digits or more).
 *
 * @example
 * parseWholeNumber('42'); // 42
 * parseWholeNumber('042'); // null
 */
export function parseWholeNumber(text: string): number | null {
  return WHOLE_NUMBER.test(text) ? Number(text) : null;
}
