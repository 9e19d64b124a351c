import { validateUserFields } from './validate-user-fields';

describe('validateUserFields', () => {
  it('returns the fields trimmed, the name in NFC and the e-mail in NFKC, keeping the case', () => {
    expect(
      validateUserFields({ name: '  Jose\u0301  ', email: ' \uff2a\uff4f\uff53\uff45\uff20Example.com ' }, 'create'),
    ).toEqual({ ok: true, fields: { name: 'Jos\u00e9', email: 'Jose@Example.com' } });
  });

  it('reports every problem at once', () => {
    expect(validateUserFields({ id: 1, name: '', email: 'x' }, 'create')).toEqual({
      ok: false,
      details: [
        { target: 'id', message: 'is assigned by the server; leave it out' },
        { target: 'name', message: 'must not be empty' },
        { target: 'email', message: 'is not a well-formed e-mail address' },
      ],
    });
  });

  it.each([
    ['a body that is no object', 'create', [], '', 'The body must be a JSON object.'],
    ['a missing name on create', 'create', { email: 'a@example.com' }, 'name', 'is required'],
    ['null in a patch', 'patch', { email: null }, 'email', 'is required and cannot be removed'],
    ['a name that is no string', 'patch', { name: 7 }, 'name', 'must be a string'],
    ['a control character in a name', 'patch', { name: 'a\u0007' }, 'name', 'must not contain control characters'],
    ['a lone surrogate in a name', 'patch', { name: 'a\ud800' }, 'name', 'must be valid Unicode text'],
    [
      'a zero-width space in a name',
      'patch',
      { name: 'a\u200bb' },
      'name',
      'must not contain invisible characters (U+200B)',
    ],
    ['101 characters', 'patch', { name: 'n'.repeat(101) }, 'name', 'must be at most 100 characters long'],
    ['NUL in an e-mail', 'patch', { email: 'a\u0000@example.com' }, 'email', 'is not a well-formed e-mail address'],
    [
      'a right-to-left override in an e-mail',
      'patch',
      { email: '\u202ea@example.com' },
      'email',
      'must not contain invisible characters (U+202E)',
    ],
    [
      'a Cyrillic look-alike among Latin letters in an e-mail',
      'patch',
      { email: '\u0430da@example.com' },
      'email',
      'must not mix Latin, Greek and Cyrillic letters',
    ],
    [
      'a Greek look-alike among Latin letters in an e-mail',
      'patch',
      { email: 'j\u03bfhn@example.com' },
      'email',
      'must not mix Latin, Greek and Cyrillic letters',
    ],
    [
      'Cyrillic and Greek letters in one e-mail',
      'patch',
      { email: '\u0438\u03b1@example.com' },
      'email',
      'must not mix Latin, Greek and Cyrillic letters',
    ],
    [
      'an id other than the path’s',
      'replace',
      { id: 8, name: 'A', email: 'a@example.com' },
      'id',
      'must match the id in the path (7)',
    ],
  ] as const)('refuses %s', (_case, mode, body, target, message) => {
    expect(validateUserFields(body, mode, 7)).toEqual({ ok: false, details: [{ target, message }] });
  });

  it('takes an e-mail written in one script, digits and punctuation aside, and Latin with CJK', () => {
    for (const email of [
      'ada.lovelace+1@example.com',
      '\u0438\u0432\u0430\u043d.2024@example.com',
      '\u03b1\u03b8\u03b7\u03bd\u03b1@example.gr',
      'jos\u00e9@example.com',
      'taro\u5c71\u7530@example.jp',
      'ada@xn--80ak6aa92e.com',
    ]) {
      expect(validateUserFields({ email }, 'patch')).toEqual({ ok: true, fields: { email } });
    }
  });

  it('counts characters as people do: 100 emoji are a valid name, 100 decomposed é too', () => {
    expect(validateUserFields({ name: '\u{1f642}'.repeat(100) }, 'patch').ok).toBe(true);
    expect(validateUserFields({ name: 'e\u0301'.repeat(100) }, 'patch').ok).toBe(true);
  });
});
