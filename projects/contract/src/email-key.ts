import { confusableSkeleton } from './confusable-skeleton.js';

/**
 * Latin small capitals (`ᴀ` U+1D00, `ʀ` U+0280, ...) as the letters they are. confusables.txt keeps
 * most of them apart (`ᴀ` is a prototype of its own, next to Cherokee `ꭺ`), since a small `ᴀ` and an
 * `A` differ in size; once case is ignored that difference is gone, and `ᴀda` reads as `Ada`.
 */
const SMALL_CAPITALS: Readonly<Record<string, string>> = {
  '\u1d00': 'a',
  '\u0299': 'b',
  '\u1d04': 'c',
  '\u1d05': 'd',
  '\u1d07': 'e',
  '\ua730': 'f',
  '\u0262': 'g',
  '\u029c': 'h',
  '\u026a': 'i',
  '\u1d0a': 'j',
  '\u1d0b': 'k',
  '\u029f': 'l',
  '\u1d0d': 'm',
  '\u0274': 'n',
  '\u1d0f': 'o',
  '\u1d18': 'p',
  '\ua7af': 'q',
  '\u0280': 'r',
  '\ua731': 's',
  '\u1d1b': 't',
  '\u1d1c': 'u',
  '\u1d20': 'v',
  '\u1d21': 'w',
  '\u028f': 'y',
  '\u1d22': 'z',
};
/** A bound with margin: no character of confusables.txt 17.0.0 changes in more than two rounds. */
const MAX_ROUNDS = 4;
const SMALL_CAPITAL = new RegExp(`[${Object.keys(SMALL_CAPITALS).join('')}]`, 'gu');

/**
 * The key under which an e-mail address is unique: two addresses with the same key are one address,
 * or look like one, and the second cannot be created (409 `Conflict`). Two steps, twice:
 * - case and forms: the address in Unicode compatibility form (NFKC: fullwidth `ｊｏｓｅ` is `jose`,
 *   NFD `jose\u0301` is NFC `josé`), case-folded as a whole (upper then lower case, a close
 *   approximation of Unicode's NFKC_Casefold: `JOSÉ`, `josé` and `José` are one, and so are `ß` and
 *   `ss`), Latin small capitals as their letters (`ᴀ` is `a`), and in NFKC again;
 * - look-alikes: its confusable skeleton (UTS #39, {@link confusableSkeleton}), so that Cyrillic,
 *   Greek, Armenian or Cherokee letters that pass for Latin ones (`аdа`, `lօve`, `Ꭺda`), Latin alpha
 *   `ɑ`, digits `0` and `1` for `O` and `l`, and `rn` for `m` give the key of the Latin address.
 * The skeleton gives some capitals (`0` → `O`, Cherokee `ꭺ` → `ᴀ`), so the two steps repeat until
 * nothing changes: the key is its own key, in NFC. It covers the whole address, the domain too (`examp1e.com`
 * reads as `example.com`). It is a key, never shown: `ada@example.com` is `ada@exarnple.corn`.
 *
 * Case-insensitive local parts are what every common mail provider does, and the only choice
 * that keeps look-alike accounts apart; the stored address keeps the case its owner typed.
 *
 * @example
 * emailKey('José@Example.com') === emailKey('ｊｏｓｅ\u0301@example.com'); // true
 * emailKey('ada@example.com') === emailKey('\u0430d\u0430@example.com'); // true: Cyrillic а
 */
export function emailKey(email: string): string {
  let key = fold(email);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const next = fold(confusableSkeleton(key));
    if (next === key) break;
    key = next;
  }
  return key;
}

function fold(text: string): string {
  return text
    .normalize('NFKC')
    .toUpperCase()
    .toLowerCase()
    .replace(SMALL_CAPITAL, (character) => SMALL_CAPITALS[character] ?? character)
    .normalize('NFKC');
}
