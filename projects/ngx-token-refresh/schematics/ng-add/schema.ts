/** Options of `ng add ngx-token-refresh` (see schema.json). */
export interface NgAddOptions {
  /** The application to set up. Default: the application of the current directory, or the first one. */
  project?: string;
  /** `'auth'`: `provideAuth` (this library's `/auth` contract); `'custom'`: `provideTokenRefresh`. */
  setup?: 'auth' | 'custom';
  /** The refresh endpoint. Default: `'/auth/refresh'`. */
  refreshUrl?: string;
}
