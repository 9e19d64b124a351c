import { MAX_ERROR_DETAILS, invalidRequest } from './invalid-request';

describe('invalidRequest', () => {
  it('says every problem in one sentence', () => {
    expect(
      invalidRequest([
        { target: 'email', message: 'is required' },
        { target: 'extra', message: 'is not a known field' },
      ]),
    ).toEqual({
      message: 'The request is not valid: email is required; extra is not a known field.',
      details: [
        { target: 'email', message: 'is required' },
        { target: 'extra', message: 'is not a known field' },
      ],
    });
  });

  it('ends a problem that is a sentence of its own with one period', () => {
    expect(invalidRequest([{ target: '', message: 'The body must be a JSON object.' }]).message).toBe(
      'The request is not valid: The body must be a JSON object.',
    );
  });

  it(`keeps ${MAX_ERROR_DETAILS} details and counts the rest, given or only counted`, () => {
    const problems = Array.from({ length: 13 }, (_, i) => ({ target: `k${i}`, message: 'is not a known field' }));
    const all = invalidRequest(problems);
    expect(all.details).toEqual(problems.slice(0, MAX_ERROR_DETAILS));
    expect(all.message).toMatch(/k9 is not a known field; and 3 more problems\.$/);
    expect(invalidRequest(problems.slice(0, 10), 11).message).toMatch(/; and 1 more problem\.$/);
  });
});
