import { emailKey } from './email-key';

const ADA = 'ada.lovelace@example.com';

describe('emailKey', () => {
  it.each([
    ['NFC and NFD', 'jos\u00e9@example.com', 'jose\u0301@example.com'],
    ['ASCII and fullwidth letters', 'jose@example.com', '\uff4a\uff4f\uff53\uff45\uff20\uff45xample.com'],
    ['lower and upper case, beyond ASCII too', 'jos\u00e9@example.com', 'JOS\u00c9@EXAMPLE.COM'],
    ['ß and SS', 'stra\u00dfe@example.com', 'STRASSE@example.com'],
    ['the Kelvin sign and K', '\u212a@example.com', 'k@example.com'],
    ['upper-case I and i (I is l in the skeleton, i is not)', 'Ian@example.com', 'ian@example.com'],
  ])('gives one key to one address written two ways: %s', (_case, one, other) => {
    expect(emailKey(one)).toBe(emailKey(other));
  });

  it.each([
    ['Armenian օ (U+0585)', 'ada.l\u0585velace@example.com'],
    ['Latin alpha ɑ (U+0251)', '\u0251da.lovelace@example.com'],
    ['small capital ᴀ (U+1D00)', '\u1d00da.lovelace@example.com'],
    ['Cherokee Ꭺ (U+13AA)', '\u13aada.lovelace@example.com'],
    ['Cherokee small ꭺ (U+AB7A)', '\uab7ada.lovelace@example.com'],
    ['a digit 1 for l, in upper case', 'ADA.1OVELACE@EXAMPLE.COM'],
    ['a look-alike domain', 'ada.lovelace@examp1e.c0m'],
  ])('gives a look-alike of ada.lovelace@example.com its key: %s', (_case, lookAlike) => {
    expect(emailKey(lookAlike)).toBe(emailKey(ADA));
  });

  it('gives a wholly Cyrillic look-alike the key of the Latin address', () => {
    // с, о, с, о: Cyrillic ES and O, one script, so the mixed-script rule lets it through.
    expect(emailKey('\u0441\u043e\u0441\u043e@example.com')).toBe(emailKey('coco@example.com'));
  });

  it('gives rn and m one key, as UTS #39 does (rnary@ reads as mary@)', () => {
    expect(emailKey('rnary@example.com')).toBe(emailKey('mary@example.com'));
  });

  it.each([
    ['different letters', 'jose@example.com', 'josé@example.com'],
    ['different domains', 'ada@example.com', 'ada@example.org'],
    ['a plus tag', 'ada+news@example.com', 'ada@example.com'],
    ['a digit more', ADA, 'ada.lovelace2@example.com'],
    ['i and l', 'ian@example.com', 'lan@example.com'],
    ['r n and m', 'r.n@example.com', 'm@example.com'],
    ['Cyrillic that passes for nothing Latin', '\u0438\u0432\u0430\u043d@example.com', 'ivan@example.com'],
  ])('keeps different addresses apart: %s', (_case, one, other) => {
    expect(emailKey(one)).not.toBe(emailKey(other));
  });

  it('is composed, lower case and stable', () => {
    const key = emailKey('JOSE\u0301@Example.com');

    expect(key).toBe('jos\u00e9@exarnple.corn');
    expect(emailKey(key)).toBe(key);
  });

  it('is stable when the skeleton gives capitals (0 → O, % → º/₀)', () => {
    for (const email of ['j0hn@example.com', 'a%b@example.com', '\uab7a@example.com']) {
      const key = emailKey(email);
      expect(emailKey(key)).toBe(key);
    }
  });
});
