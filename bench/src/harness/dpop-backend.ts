import {
  type HttpBackend,
  type HttpEvent,
  HttpErrorResponse,
  HttpEventType,
  type HttpRequest,
  HttpResponse,
} from '@angular/common/http';
import { Observable } from 'rxjs';

const ITEMS = [{ id: 1 }, { id: 2 }];

/** Characters of an access token: about the size of a JWT access token with a few claims. */
const TOKEN_LENGTH = 640;

/**
 * The DPoP suite's backend: answers at once (synchronously) after `Sent`, like the happy path's, and
 * reads the headers a DPoP server reads. A request passes with `Authorization: <scheme> <current
 * token>` and, for DPoP, a `DPoP` header; the proofs themselves are checked apart (checkProof in
 * measure/dpop-rounds.ts), not on every request: the server's work is not what is measured.
 */
export class DPoPBackend implements HttpBackend {
  requests = 0;
  rejected = 0;
  /** The last request's `Authorization` and `DPoP` headers. */
  lastAuthorization: string | null = null;
  lastProof: string | null = null;
  /** The current token. */
  token = '';

  private serial = 0;
  private expected = '';

  constructor(private readonly scheme: 'Bearer' | 'DPoP') {}

  /** Issues a new token (a login, or a refresh) and returns it. */
  issueToken(): string {
    const serial = `token-${++this.serial}.`;
    this.token = serial + 'x'.repeat(TOKEN_LENGTH - serial.length);
    this.expected = `${this.scheme} ${this.token}`;
    return this.token;
  }

  handle(request: HttpRequest<unknown>): Observable<HttpEvent<unknown>> {
    return new Observable<HttpEvent<unknown>>((subscriber) => {
      subscriber.next({ type: HttpEventType.Sent });
      this.requests++;
      const authorization = request.headers.get('Authorization');
      const proof = request.headers.get('DPoP');
      this.lastAuthorization = authorization;
      this.lastProof = proof;
      if (authorization !== this.expected || (this.scheme === 'DPoP') !== (proof !== null)) {
        this.rejected++;
        subscriber.error(new HttpErrorResponse({ status: 401, statusText: 'Unauthorized', url: request.url }));
        return;
      }
      subscriber.next(new HttpResponse({ status: 200, statusText: 'OK', url: request.url, body: ITEMS }));
      subscriber.complete();
    });
  }
}
