/** One problem with one part of a request, in the `details` of the uniform error body. */
export interface ErrorDetail {
  /** The field concerned (`email`, `pageSize`, `id`), or `''` for the request as a whole. */
  readonly target: string;
  /** What is wrong with it, e.g. `is already taken`. */
  readonly message: string;
}

/** The uniform error body of the contract: `{ error: { code, message, details? } }`. */
export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly details?: readonly ErrorDetail[] };
}

/**
 * An answer that is an error, thrown from a handler or hook and sent by the server's error handler
 * with the uniform body. `details` is left out of the body when empty (the contract marks it optional).
 *
 * @example
 * throw new HttpError(409, 'Conflict', 'The e-mail address is already taken.', {
 *   details: [{ target: 'email', message: 'is already taken' }],
 * });
 */
export class HttpError extends Error {
  readonly details: readonly ErrorDetail[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    options: { readonly details?: readonly ErrorDetail[]; readonly headers?: Readonly<Record<string, string>> } = {},
  ) {
    // No stack trace: this error is the answer, never a fault to trace (an unexpected error is logged
    // with its own stack before it becomes one). Capturing it cost more than checking the token did:
    // 6.5-8 µs per error answer in a profile of the server under load (bench/SERVER-FINDINGS.md).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'HttpError';
    this.details = options.details ?? [];
    this.headers = options.headers ?? {};
  }

  /** The body to send. */
  toBody(): ErrorBody {
    const { code, message, details } = this;
    return { error: details.length > 0 ? { code, message, details } : { code, message } };
  }
}
