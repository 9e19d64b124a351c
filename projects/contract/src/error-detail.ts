/** One problem with one part of a request, in the `details` of the uniform error body. */
export interface ErrorDetail {
  /** The field concerned (`email`, `pageSize`, `id`), or `''` for the request as a whole. */
  readonly target: string;
  /** What is wrong with it, e.g. `is already taken`. */
  readonly message: string;
}
