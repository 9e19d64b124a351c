import { negotiateVersion } from './negotiate-version';

const V1 = 'application/vnd.showcase.v1+json';

describe('negotiateVersion', () => {
  it.each([
    ['version 1', [V1]],
    ['version 1 in another case, with parameters', ['Application/VND.Showcase.V1+JSON; charset=utf-8; q=0.5']],
    ['version 1 among other ranges, over several headers', ['application/json', `text/html, ${V1};q=0.1`]],
  ])('accepts %s', (_case, accept) => {
    expect(negotiateVersion(accept, 'showcase')).toEqual({ ok: true });
  });

  it.each([
    ['q=0', [`${V1};q=0`]],
    ['q=0.000', [`${V1}; q=0.000`]],
  ])('refuses version 1 with %s ("not this", RFC 9110 §12.4.2)', (_case, accept) => {
    expect(negotiateVersion(accept, 'showcase').ok).toBe(false);
  });

  it('names the versions asked for that do not exist', () => {
    expect(
      negotiateVersion(['application/vnd.showcase.v2+json, application/vnd.showcase.v3+json'], 'showcase'),
    ).toEqual({
      ok: false,
      message: `Version 2, 3 of the users API does not exist; ask for ${V1}.`,
    });
  });

  it.each([[['*/*']], [['application/json']], [['']], [[]]])('says how to ask when Accept is %j', (accept) => {
    expect(negotiateVersion(accept, 'showcase')).toEqual({
      ok: false,
      message: `Say which version of the users API you want: Accept: ${V1} (or call /api/v1/users).`,
    });
  });

  it('reads no more than 50 media ranges', () => {
    expect(negotiateVersion([`${'text/plain, '.repeat(50)}${V1}`], 'showcase').ok).toBe(false);
  });
});
