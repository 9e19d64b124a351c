import { isDPoPNonceError } from 'oauth4webapi';

/**
 * Runs `call` (a request and the processing of its answer), and once more when the server asked for a
 * DPoP nonce (`use_dpop_nonce`, RFC 9449 sections 8 and 9): oauth4webapi's handle has kept the nonce
 * of that answer, and the second proof carries it. Safe for the token endpoint too: a provider checks
 * the proof before it spends the code or the refresh token.
 */
export async function retryOnDpopNonce<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!isDPoPNonceError(error)) throw error;
    // The challenge's own answer is done with; left unread, it would hold its connection.
    await (error as { response?: Response }).response?.body?.cancel().catch(() => undefined);
    return call();
  }
}
