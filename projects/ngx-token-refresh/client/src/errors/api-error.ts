/** One problem with one field of a request, as in the `details` of the uniform error body. */
export interface ApiErrorDetail {
  /** The field concerned, e.g. `'email'`. */
  readonly target: string;
  /** What is wrong with it, e.g. `'is already taken'`. */
  readonly message: string;
}

/**
 * Every failure that reaches a caller of `UsersService` or `AuthClient`: the uniform error body
 * `{ error: { code, message, details? } }` of the service when it sent one, and otherwise a stable
 * code of this library's (see `parseApiError`). `cause` holds the original error.
 *
 * @usageNotes
 * ```ts
 * users.create(form.value).subscribe({
 *   error: (error: ApiError) => {
 *     if (error.code === 'Conflict') this.message.set('That e-mail is taken.');
 *     else this.message.set(error.message);
 *   },
 * });
 * ```
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    /** HTTP status of the response; `0` when there was none (network down, timeout, a client-side error). */
    readonly status: number,
    /** Stable, machine-readable code: the service's own (`InvalidRequest`) or this library's (`NetworkError`). */
    readonly code: string,
    /** A sentence a person can read; never raw HTML or `[object Object]`. */
    message: string,
    /** Field-level problems, empty when there are none. */
    readonly details: readonly ApiErrorDetail[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
