/** Unicode's format characters (category Cf): invisible, yet they make two equal-looking texts differ. */
const FORMAT = /\p{Cf}/u;
/**
 * ZERO WIDTH NON-JOINER and ZERO WIDTH JOINER between two visible characters, where writing needs
 * them: Persian and Indic words (`می‌خواهم`), emoji sequences (`👩‍💻`, after a variation
 * selector or a skin tone too).
 */
const JOINER_IN_WORD =
  /(?<=[\p{L}\p{M}\p{N}\p{Extended_Pictographic}\p{Emoji_Modifier}])[\u200c\u200d](?=[\p{L}\p{M}\p{N}\p{Extended_Pictographic}])/gu;
/** An emoji tag sequence, the flags of England, Scotland and Wales: 🏴, tag letters, CANCEL TAG. */
const EMOJI_TAG_SEQUENCE = /\u{1f3f4}[\u{e0020}-\u{e007e}]+\u{e007f}/gu;

/**
 * The first invisible format character (Unicode category Cf) of `text`, as `U+XXXX`, or `null` when
 * there is none: zero-width space U+200B, word joiner U+2060, byte-order mark U+FEFF, soft hyphen
 * U+00AD, the bidirectional controls (right-to-left override U+202E, isolates U+2066 to U+2069), and
 * the rest of the category. With `inWords: true` (names), the joiners U+200C and U+200D between two
 * visible characters and emoji tag sequences are allowed, since some scripts and emoji need them;
 * anywhere else they are reported too.
 *
 * @example
 * findInvisibleCharacter('Ada\u200bLovelace', { inWords: true }); // 'U+200B'
 * findInvisibleCharacter('👩‍💻', { inWords: true }); // null
 */
export function findInvisibleCharacter(text: string, options: { readonly inWords: boolean }): string | null {
  const checked = options.inWords ? text.replace(JOINER_IN_WORD, '').replace(EMOJI_TAG_SEQUENCE, '') : text;
  const found = FORMAT.exec(checked)?.[0];
  return found === undefined ? null : `U+${(found.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}
