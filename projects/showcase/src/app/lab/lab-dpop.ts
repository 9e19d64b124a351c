import type { HttpRequest } from '@angular/common/http';
import { Injectable, signal } from '@angular/core';

/** A DPoP proof as the auth lab shows it: the call it was signed for, its header and its claims. */
export interface LabProof {
  /** The method and URL of the call, as the app sent it. */
  readonly call: string;
  /** The `Authorization` scheme the call went with: `DPoP`, or `none` (a sign-in, a refresh). */
  readonly scheme: string;
  /** The proof's protected header (`typ`, `alg`, `jwk`), decoded, not verified. */
  readonly header: Readonly<Record<string, unknown>>;
  /** The proof's claims (`jti`, `htm`, `htu`, `iat`, `ath`, `nonce`), decoded, not verified. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/**
 * The last DPoP proof this tab sent, for the auth lab's DPoP card. Provided by backend-providers.real.ts
 * only in the `real-dpop` build, whose app signs its requests with `withDPoP()`; `labDPoPRecorder`
 * fills it, seeing each request after the library signed it.
 */
@Injectable()
export class LabDPoP {
  readonly #last = signal<LabProof | null>(null);
  /** The proof of the last call that carried one, or `null` before the first. */
  readonly last = this.#last.asReadonly();

  /** Keeps the proof of `request`, if it has one that decodes. */
  record(request: HttpRequest<unknown>): void {
    const [header, claims] = (request.headers.get('DPoP') ?? '').split('.').map(decodePart);
    if (!header || !claims) return;
    const scheme = request.headers.get('Authorization')?.split(' ')[0] ?? 'none';
    this.#last.set({ call: `${request.method} ${request.urlWithParams}`, scheme, header, claims });
  }
}

/** A JWS part's JSON object, or `null` when it is none. */
function decodePart(part: string | undefined): Record<string, unknown> | null {
  try {
    const bytes = Uint8Array.from(atob((part ?? '').replace(/-/g, '+').replace(/_/g, '/')), (char) =>
      char.charCodeAt(0),
    );
    // UTF-8, as JOSE encodes it: atob alone would read each byte as a character.
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
