import { OperationProcessingError, ResponseBodyError, WWWAuthenticateChallengeError } from 'oauth4webapi';

/**
 * What went wrong in a call to the provider, for a person reading a log or an error answer: the
 * provider's own error (`invalid_grant: ...`), an answer that is not what OAuth says (an HTML error
 * page of a proxy, JSON without a token), or no answer at all (refused connection, timeout).
 * Never includes a token: oauth4webapi's errors keep the body in `cause`, which is not read here.
 */
export function describeProviderError(error: unknown): string {
  if (error instanceof ResponseBodyError) {
    const description = error.error_description ? `: ${error.error_description}` : '';
    return `answered ${error.status} ${error.error}${description}`;
  }
  if (error instanceof WWWAuthenticateChallengeError) {
    const challenge = error.cause[0];
    return `answered ${error.status} with the challenge ${challenge?.scheme ?? ''} ${challenge?.parameters.error ?? ''}`.trim();
  }
  if (error instanceof OperationProcessingError) {
    const cause = error.cause;
    if (cause instanceof Response) {
      const type = cause.headers.get('content-type')?.split(';')[0] ?? 'no content type';
      return `answered ${cause.status} (${type}), not an OAuth answer: ${error.message}`;
    }
    return `answered something oauth4webapi refused: ${error.message}`;
  }
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return 'did not answer in time (refreshTimeout)';
  }
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const code = (error.cause as { code?: unknown } | undefined)?.code;
    return `did not answer (${typeof code === 'string' ? code : 'network error'})`;
  }
  return `failed: ${error instanceof Error ? error.message : String(error)}`;
}
