import { readBearerToken } from './read-bearer-token';

describe('readBearerToken', () => {
  it.each([
    ['Bearer abc.def.ghi', 'abc.def.ghi'],
    ['bearer abc', 'abc'],
    ['  Bearer   abc  ', 'abc'],
  ])('reads the token of %p', (header, token) => {
    expect(readBearerToken(header)).toBe(token);
  });

  it.each([undefined, null, '', '   '])('answers null (no credentials) to %p', (header) => {
    expect(readBearerToken(header)).toBeNull();
  });

  it.each(['Basic YWRhOmxvdmVsYWNl', 'Bearer', 'Bearer ', 'Bearer a b', 'Bearer t\u00f6ken', 'Bearerabc'])(
    'answers "" (not a Bearer token) to %p',
    (header) => {
      expect(readBearerToken(header)).toBe('');
    },
  );
});
