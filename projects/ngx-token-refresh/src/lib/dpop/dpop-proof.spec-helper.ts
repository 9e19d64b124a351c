import {
  HttpErrorResponse,
  type HttpBackend,
  type HttpEvent,
  type HttpRequest,
  HttpResponse,
} from '@angular/common/http';
import { createHash, webcrypto } from 'node:crypto';
import { Observable } from 'rxjs';

// Checks DPoP proofs the way a server does, for the specs of withDPoP and of the features that use it.

/** Gives the specs of this file WebCrypto (Node's; jsdom has none). */
export function useNodeWebCrypto(): void {
  const realCrypto = globalThis.crypto;
  beforeAll(() => Object.defineProperty(globalThis, 'crypto', { configurable: true, value: webcrypto }));
  afterAll(() => Object.defineProperty(globalThis, 'crypto', { configurable: true, value: realCrypto }));
}

/** What a proof says, once its signature checked out against the key in its own header. */
export interface Proof {
  readonly header: { typ: string; alg: string; jwk: JsonWebKey };
  readonly claims: { jti: string; htm: string; htu: string; iat: number; ath?: string; nonce?: string };
}

export async function verify(proof: string | null): Promise<Proof> {
  const [header, payload, signature] = (proof ?? '').split('.');
  const decode = (part: string) => Buffer.from(part, 'base64url');
  const parsed = JSON.parse(decode(header!).toString()) as Proof['header'];
  const key = await webcrypto.subtle.importKey('jwk', parsed.jwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, [
    'verify',
  ]);
  const valid = await webcrypto.subtle.verify(
    { name: 'ECDSA', hash: 'SHA-256' },
    key,
    decode(signature!),
    new TextEncoder().encode(`${header}.${payload}`),
  );
  if (!valid) throw new Error('the proof does not verify');
  return { header: parsed, claims: JSON.parse(decode(payload!).toString()) as Proof['claims'] };
}

export const athOf = (token: string) => createHash('sha256').update(token).digest('base64url');

/** The claims of a request's proof, unverified (for the scripted server's decisions). */
export const claimsOf = (request: HttpRequest<unknown>) =>
  JSON.parse(Buffer.from(request.headers.get('DPoP')!.split('.')[1]!, 'base64url').toString()) as Proof['claims'];

/** A server that answers through `answer`, and remembers every request. */
export class ScriptedServer {
  readonly requests: HttpRequest<unknown>[] = [];
  answer: (request: HttpRequest<unknown>) => HttpResponse<unknown> | HttpErrorResponse = (request) =>
    new HttpResponse({ status: 200, body: { ok: request.url }, url: request.url });

  readonly backend: HttpBackend = {
    handle: (request) =>
      new Observable<HttpEvent<unknown>>((subscriber) => {
        this.requests.push(request);
        const answer = this.answer(request);
        if (answer instanceof HttpErrorResponse) subscriber.error(answer);
        else {
          subscriber.next(answer);
          subscriber.complete();
        }
      }),
  };

  to(url: string): HttpRequest<unknown>[] {
    return this.requests.filter((request) => request.url.split('?')[0] === url);
  }
}
