import { emailKey } from './email-key';

describe('emailKey', () => {
  it.each([
    ['NFC and NFD', 'jos\u00e9@example.com', 'jose\u0301@example.com'],
    ['ASCII and fullwidth letters', 'jose@example.com', '\uff4a\uff4f\uff53\uff45\uff20\uff45xample.com'],
    ['lower and upper case, beyond ASCII too', 'jos\u00e9@example.com', 'JOS\u00c9@EXAMPLE.COM'],
    ['ß and SS', 'stra\u00dfe@example.com', 'STRASSE@example.com'],
    ['the Kelvin sign and K', '\u212a@example.com', 'k@example.com'],
  ])('gives one key to one address written two ways: %s', (_case, one, other) => {
    expect(emailKey(one)).toBe(emailKey(other));
  });

  it.each([
    ['different letters', 'jose@example.com', 'josé@example.com'],
    ['different domains', 'ada@example.com', 'ada@example.org'],
    ['a plus tag', 'ada+news@example.com', 'ada@example.com'],
  ])('keeps different addresses apart: %s', (_case, one, other) => {
    expect(emailKey(one)).not.toBe(emailKey(other));
  });

  it('is composed, lower case and stable', () => {
    const key = emailKey('JOSE\u0301@Example.com');

    expect(key).toBe('jos\u00e9@example.com');
    expect(emailKey(key)).toBe(key);
  });
});
