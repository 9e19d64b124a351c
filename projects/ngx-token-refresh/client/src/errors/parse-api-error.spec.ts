import { HttpErrorResponse } from '@angular/common/http';
import { TokenRefreshError } from 'ngx-token-refresh';
import { ApiError, type ApiErrorDetail, getFieldErrors, parseApiError } from 'ngx-token-refresh/client';
import { TimeoutError } from 'rxjs';

describe('parseApiError', () => {
  describe('the uniform error body', () => {
    it('reads code, message and details from it', () => {
      const error = parseApiError(
        httpError(400, {
          error: {
            code: 'InvalidRequest',
            message: 'The user is not valid.',
            details: [{ target: 'email', message: 'is not an e-mail address' }],
          },
        }),
      );

      expect(error.status).toBe(400);
      expect(error.code).toBe('InvalidRequest');
      expect(error.message).toBe('The user is not valid.');
      expect(error.details).toEqual([{ target: 'email', message: 'is not an e-mail address' }]);
    });

    it('gives empty details when the body has none', () => {
      const error = parseApiError(httpError(409, { error: { code: 'EmailTaken', message: 'That e-mail is taken.' } }));

      expect(error.code).toBe('EmailTaken');
      expect(error.details).toEqual([]);
    });

    it.each<[string, unknown]>([
      ['a string', 'email is wrong'],
      ['an object', { target: 'email', message: 'is wrong' }],
    ])('gives empty details when details is %s instead of an array', (_, details) => {
      const error = parseApiError(httpError(400, { error: { code: 'InvalidRequest', message: 'Invalid.', details } }));

      expect(error.code).toBe('InvalidRequest');
      expect(error.details).toEqual([]);
    });

    it('drops details that are not objects or have no readable message', () => {
      const details: unknown[] = [
        null,
        'email is wrong',
        42,
        [{ target: 'email', message: 'nested' }],
        { target: 'email' },
        { target: 'email', message: 42 },
        { target: 'email', message: '   ' },
        { target: 'email', message: '<b>bold</b>' },
        { target: 'name', message: 'is required' },
      ];

      const error = parseApiError(httpError(400, { error: { code: 'InvalidRequest', message: 'Invalid.', details } }));

      expect(error.details).toEqual([{ target: 'name', message: 'is required' }]);
    });

    it.each<[string, unknown]>([
      ['a number', 42],
      ['null', null],
      ['an object', { field: 'email' }],
      ['missing', undefined],
    ])('keeps a detail whose target is %s as a message for the whole form (target "")', (_, target) => {
      const error = parseApiError(
        httpError(400, {
          error: { code: 'InvalidRequest', message: 'Invalid.', details: [{ target, message: 'bad' }] },
        }),
      );

      expect(error.details).toEqual([{ target: '', message: 'bad' }]);
    });

    it.each<[string, unknown]>([
      ['a sentence', 'That e-mail is taken'],
      ['markup', '<b>Conflict</b>'],
      ['a number', 409],
      ['empty', ''],
      ['too long', `C${'o'.repeat(64)}`],
    ])('uses the code of the status when the body code is %s', (_, code) => {
      const error = parseApiError(httpError(409, { error: { code, message: 'That e-mail is taken.' } }));

      expect(error.code).toBe('Conflict');
      expect(error.message).toBe('That e-mail is taken.');
    });

    it('reads a uniform error body that arrives as JSON text', () => {
      const text = ` ${JSON.stringify({
        error: {
          code: 'EmailTaken',
          message: 'That e-mail is taken.',
          details: [{ target: 'email', message: 'taken' }],
        },
      })}\n`;

      const error = parseApiError(httpError(409, text));

      expect(error.code).toBe('EmailTaken');
      expect(error.message).toBe('That e-mail is taken.');
      expect(error.details).toEqual([{ target: 'email', message: 'taken' }]);
    });

    it('uses the message of the status when the body message is markup', () => {
      const error = parseApiError(httpError(400, { error: { code: 'InvalidRequest', message: '<script>x</script>' } }));

      expect(error.code).toBe('InvalidRequest');
      expect(error.message).toBe('The request was not valid.');
    });
  });

  describe('other bodies', () => {
    it('shows a plain-text body as the message, with the code of the status', () => {
      const error = parseApiError(httpError(503, 'Down for maintenance until 14:00.'));

      expect(error.status).toBe(503);
      expect(error.code).toBe('ServiceUnavailable');
      expect(error.message).toBe('Down for maintenance until 14:00.');
    });

    it("never shows a proxy's HTML error page", () => {
      const page = '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>';

      const error = parseApiError(httpError(502, page));

      expect(error.status).toBe(502);
      expect(error.code).toBe('BadGateway');
      expect(error.message).not.toContain('<');
    });

    // HttpXhrBackend (provideHttpClient's default) reports a 2xx body that is not JSON (a server's
    // index.html fallback) as an HttpErrorResponse with the status of the response and the body
    // `{ error: SyntaxError, text }`.
    it('never shows an HTML page that came with 200 where JSON was expected', () => {
      const page = '<!DOCTYPE html>\n<html><head><title>My app</title></head><body></body></html>';

      const error = parseApiError(httpError(200, { error: jsonSyntaxError(page), text: page }));

      expect(error.message).not.toContain('<');
    });

    const STATUSES: [status: number, code: string][] = [
      [400, 'BadRequest'],
      [401, 'Unauthorized'],
      [403, 'Forbidden'],
      [404, 'NotFound'],
      [406, 'NotAcceptable'],
      [409, 'Conflict'],
      [413, 'PayloadTooLarge'],
      [429, 'TooManyRequests'],
      [500, 'ServerError'],
      [503, 'ServiceUnavailable'],
      [599, 'ServerError'],
      [418, 'HttpError'],
    ];

    it.each(STATUSES.flatMap(([status, code]) => [[status, code, "''"] as const, [status, code, 'null'] as const]))(
      'gives %s without a body the code %s and a sentence (body %s)',
      (status, code, body) => {
        const error = parseApiError(httpError(status, body === 'null' ? null : ''));

        expect(error.status).toBe(status);
        expect(error.code).toBe(code);
        expect(error.message).toMatch(/^[A-Z].*\.$/);
      },
    );
  });

  describe('failures without a response', () => {
    it('gives NetworkError for status 0', () => {
      const error = parseApiError(new HttpErrorResponse({ status: 0, error: new ProgressEvent('error') }));

      expect(error.status).toBe(0);
      expect(error.code).toBe('NetworkError');
    });

    // This is how HttpClient reports its `timeout` option.
    it('gives Timeout for status 0 with a TimeoutError', () => {
      const error = parseApiError(
        new HttpErrorResponse({ status: 0, error: new DOMException('Request timed out', 'TimeoutError') }),
      );

      expect(error.status).toBe(0);
      expect(error.code).toBe('Timeout');
    });

    it("gives Timeout for RxJS's TimeoutError (the timeout operator)", () => {
      const error = parseApiError(new TimeoutError());

      expect(error.status).toBe(0);
      expect(error.code).toBe('Timeout');
    });

    it('gives Timeout for a refresh that timed out', () => {
      const error = parseApiError(new TokenRefreshError('Timeout', 'the refresh took too long'));

      expect(error.status).toBe(0);
      expect(error.code).toBe('Timeout');
    });

    it('gives SessionExpired (401) for a refresh that failed otherwise', () => {
      const error = parseApiError(new TokenRefreshError('InvalidToken', 'no token in the refresh response'));

      expect(error.status).toBe(401);
      expect(error.code).toBe('SessionExpired');
    });

    it.each<[string, unknown]>([
      ['an Error', new Error('Cannot read properties of undefined')],
      ['a string', 'boom'],
      ['undefined', undefined],
    ])('gives UnknownError for %s', (_, thrown) => {
      const error = parseApiError(thrown);

      expect(error.status).toBe(0);
      expect(error.code).toBe('UnknownError');
      expect(error.message).toBe('Something went wrong.');
    });

    it('never throws for a value whose getter throws', () => {
      const hostile = {
        get name(): string {
          throw new Error('hostile getter');
        },
      };

      const error = parseApiError(hostile);

      expect(error).toBeInstanceOf(ApiError);
      expect(error.code).toBe('UnknownError');
    });

    it('never throws for a response body whose getter throws', () => {
      const body = {
        get error(): unknown {
          throw new Error('hostile getter');
        },
      };

      expect(parseApiError(httpError(500, body))).toBeInstanceOf(ApiError);
    });

    it('returns an ApiError as it is', () => {
      const original = new ApiError(404, 'NotFound', 'No such user.');

      expect(parseApiError(original)).toBe(original);
    });
  });

  describe('huge inputs', () => {
    it('cuts a 1 MB message to 500 characters', () => {
      const message = `Too long ${'x'.repeat(1024 * 1024)}`;

      const error = parseApiError(httpError(400, { error: { code: 'InvalidRequest', message } }));

      expect(error.message.length).toBeLessThanOrEqual(500);
      expect(error.message.startsWith('Too long xxx')).toBe(true);
    });

    it('cuts a 1 MB plain-text body to 500 characters', () => {
      const error = parseApiError(httpError(500, 'y'.repeat(1024 * 1024)));

      expect(error.message.length).toBeLessThanOrEqual(500);
    });

    it('keeps 50 of 10,000 details', () => {
      const details = Array.from({ length: 10_000 }, (_, index) => ({ target: `field${index}`, message: 'bad' }));

      const error = parseApiError(httpError(400, { error: { code: 'InvalidRequest', message: 'Invalid.', details } }));

      expect(error.details).toHaveLength(50);
      expect(error.details[0]).toEqual({ target: 'field0', message: 'bad' });
    });

    it('cuts a long detail target and message to 500 characters', () => {
      const details = [{ target: 't'.repeat(100_000), message: 'm'.repeat(100_000) }];

      const [detail] = parseApiError(
        httpError(400, { error: { code: 'InvalidRequest', message: 'Invalid.', details } }),
      ).details;

      expect(detail?.target.length).toBeLessThanOrEqual(500);
      expect(detail?.message.length).toBeLessThanOrEqual(500);
    });
  });

  describe('the ApiError it returns', () => {
    it.each<[string, unknown]>([
      ['an HTTP error', httpError(404, { error: { code: 'NotFound', message: 'No such user.' } })],
      ['a network error', new HttpErrorResponse({ status: 0, error: new ProgressEvent('error') })],
      ['a timeout', new HttpErrorResponse({ status: 0, error: new DOMException('Timed out', 'TimeoutError') })],
      ["RxJS's TimeoutError", new TimeoutError()],
      ['a refresh timeout', new TokenRefreshError('Timeout', 'the refresh took too long')],
      ['a failed refresh', new TokenRefreshError('InvalidToken', 'no token')],
      ['an Error', new Error('boom')],
      ['a string', 'boom'],
    ])('keeps %s as its cause', (_, original) => {
      expect(parseApiError(original).cause).toBe(original);
    });

    it('keeps the original value as its cause even when reading it throws', () => {
      const hostile = {
        get name(): string {
          throw new Error('hostile getter');
        },
      };

      expect(parseApiError(hostile).cause).toBe(hostile);
    });

    it('is an ApiError and an Error', () => {
      const error = parseApiError(httpError(500, null));

      expect(error).toBeInstanceOf(ApiError);
      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe('ApiError');
    });
  });
});

describe('getFieldErrors', () => {
  it('maps details to their fields', () => {
    const error = apiError([
      { target: 'email', message: 'is taken' },
      { target: 'name', message: 'is required' },
    ]);

    expect(getFieldErrors(error)).toEqual({ email: ['is taken'], name: ['is required'] });
  });

  it('groups several messages for one field, in order', () => {
    const error = apiError([
      { target: 'email', message: 'is too long' },
      { target: 'name', message: 'is required' },
      { target: 'email', message: 'is not an e-mail address' },
    ]);

    expect(getFieldErrors(error)['email']).toEqual(['is too long', 'is not an e-mail address']);
  });

  it('puts a detail without a target under ""', () => {
    expect(getFieldErrors(apiError([{ target: '', message: 'Try again.' }]))).toEqual({ '': ['Try again.'] });
  });

  it('gives {} for an ApiError without details', () => {
    expect(getFieldErrors(apiError([]))).toEqual({});
  });

  it.each<[string, unknown]>([
    ['an HttpErrorResponse', httpError(400, { error: { details: [{ target: 'email', message: 'is taken' }] } })],
    ['an object with details', { details: [{ target: 'email', message: 'is taken' }] }],
    ['an Error', new Error('boom')],
    ['null', null],
    ['undefined', undefined],
  ])('gives {} for %s', (_, error) => {
    expect(getFieldErrors(error)).toEqual({});
  });

  it.each(['__proto__', 'constructor', 'hasOwnProperty'])(
    'keeps the target %s as a field of its own without touching Object.prototype',
    (target) => {
      const prototypeBefore = Object.getOwnPropertyDescriptors(Object.prototype);

      const fields = getFieldErrors(apiError([{ target, message: 'is odd' }]));

      expect(Object.getOwnPropertyDescriptor(fields, target)?.value).toEqual(['is odd']);
      expect(Object.keys(fields)).toEqual([target]);
      expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptors(Object.prototype)).toEqual(prototypeBefore);
    },
  );
});

/** An error response as HttpClient reports it. */
function httpError(status: number, body: unknown): HttpErrorResponse {
  return new HttpErrorResponse({ status, statusText: 'Error', error: body, url: '/api/v1/users' });
}

function apiError(details: ApiErrorDetail[]): ApiError {
  return new ApiError(400, 'InvalidRequest', 'The request was not valid.', details);
}

/** The SyntaxError JSON.parse throws for this text. */
function jsonSyntaxError(text: string): SyntaxError {
  try {
    JSON.parse(text);
  } catch (error) {
    return error as SyntaxError;
  }
  throw new Error(`${text} is valid JSON`);
}
