import { HttpClient, HttpErrorResponse } from '@angular/common/http';
import { Component, inject, signal } from '@angular/core';
import { injectBffSession } from 'ngx-token-refresh/client';

/**
 * Rendered on the server per request (`bff` build): who is signed in (`injectBffSession()`, which a
 * server render learns from the BFF with the request's session cookie) and the API behind the BFF
 * (`GET /api/me`), called at start (in the render) and on a click; five calls at once on another.
 */
@Component({
  selector: 'app-bff-account-page',
  template: `
    <p id="bff-user">{{ session.user()?.sub ?? session.status() }}</p>
    <button id="bff-sign-in" type="button" (click)="session.signIn('/bff-account')">Sign in</button>
    <button id="bff-sign-out" type="button" (click)="signOut()">Sign out</button>
    <button id="bff-call" type="button" (click)="call()">Call the API</button>
    <button id="bff-burst" type="button" (click)="burst()">Five calls</button>
    <p id="bff-api">{{ answers().join(',') }}</p>
  `,
})
export class BffAccountPage {
  protected readonly session = injectBffSession();
  private readonly http = inject(HttpClient);
  /** Every answer of `/api/me`, in order: `sub <subject>` or `failed <status> <code>`. */
  protected readonly answers = signal<string[]>([]);

  constructor() {
    this.call();
  }

  call(): void {
    this.http.get<{ sub: string }>('/api/me').subscribe({
      next: (me) => this.answers.update((answers) => [...answers, `sub ${me.sub}`]),
      error: (error: HttpErrorResponse) => {
        const code = (error.error as { error?: { code?: string } } | null)?.error?.code ?? '';
        this.answers.update((answers) => [...answers, `failed ${error.status} ${code}`.trim()]);
      },
    });
  }

  burst(): void {
    for (let i = 0; i < 5; i++) this.call();
  }

  signOut(): void {
    void this.session.signOut();
  }
}
