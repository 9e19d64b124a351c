import { findInvisibleCharacter } from './find-invisible-character';

describe('findInvisibleCharacter', () => {
  it.each([
    ['zero-width space', 'a\u200bb', 'U+200B'],
    ['right-to-left override', 'a\u202eb', 'U+202E'],
    ['left-to-right isolate', 'a\u2066b', 'U+2066'],
    ['byte-order mark', 'a\ufeffb', 'U+FEFF'],
    ['word joiner', 'a\u2060b', 'U+2060'],
    ['soft hyphen', 'a\u00adb', 'U+00AD'],
    ['Arabic letter mark', 'a\u061cb', 'U+061C'],
    ['a tag character outside a flag', 'a\u{e0041}', 'U+E0041'],
  ])('reports a %s', (_case, text, codePoint) => {
    expect(findInvisibleCharacter(text, { inWords: true })).toBe(codePoint);
    expect(findInvisibleCharacter(text, { inWords: false })).toBe(codePoint);
  });

  it.each([
    ['an emoji ZWJ sequence', '\u{1f469}\u200d\u{1f4bb}'],
    ['an emoji ZWJ sequence after a skin tone', '\u{1f469}\u{1f3fd}\u200d\u{1f4bb}'],
    ['an emoji ZWJ sequence after a variation selector', '\u2764\ufe0f\u200d\u{1f525}'],
    ['a Persian word with a non-joiner', '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645'],
    ['a Devanagari conjunct with a joiner', '\u0915\u094d\u200d\u0937'],
    ['a subdivision flag', '\u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}'],
  ])('allows in words %s, and nowhere else', (_case, text) => {
    expect(findInvisibleCharacter(text, { inWords: true })).toBeNull();
    expect(findInvisibleCharacter(text, { inWords: false })).not.toBeNull();
  });

  it.each([
    ['at the start', '\u200dAda'],
    ['at the end', 'Ada\u200c'],
    ['next to a space', 'Ada \u200d Lovelace'],
    ['doubled', 'a\u200d\u200db'],
  ])('reports a joiner %s', (_case, text) => {
    expect(findInvisibleCharacter(text, { inWords: true })).toMatch(/^U\+200[CD]$/);
  });

  it('finds nothing in visible text, accents and emoji included', () => {
    expect(findInvisibleCharacter('Karen Sp\u00e4rck Jones \u{1f642} \u5b8b', { inWords: false })).toBeNull();
  });
});
