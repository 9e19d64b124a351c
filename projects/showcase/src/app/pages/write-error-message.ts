import type { ApiError } from 'ngx-token-refresh/client';

/**
 * What to tell the user when a change to the users failed. A 403 is the server refusing a viewer's
 * write (the page hides the write buttons from viewers, but the server decides: a token may have
 * changed hands in another tab since the page drew them), so it says so plainly rather than showing
 * the server's bare message.
 *
 * @example writeErrorMessage(error, 'delete Ada Lovelace') // "Could not delete Ada Lovelace: …"
 */
export function writeErrorMessage(error: ApiError, action: string): string {
  if (error.status === 403) {
    return `The server refused to ${action}: this account is a viewer and may only read users. Sign in as an admin to change them.`;
  }
  return `Could not ${action}: ${error.message}`;
}
