import { Component, inject, signal } from '@angular/core';
import { forkJoin } from 'rxjs';
import { type Profile, ProfileApi } from './profile-api';

/** A burst of calls at once, from the browser. */
@Component({
  selector: 'app-burst-page',
  template: `
    <button id="burst" type="button" (click)="send()">Send 5 calls</button>
    <p id="burst-status">{{ status() }}</p>
    <ul>
      @for (profile of results(); track $index) {
        <li class="burst-result">{{ profile.user }} {{ profile.token }}</li>
      }
    </ul>
  `,
})
export class BurstPage {
  private readonly api = inject(ProfileApi);
  protected readonly status = signal('idle');
  protected readonly results = signal<Profile[]>([]);

  send(): void {
    this.status.set('sending');
    forkJoin(Array.from({ length: 5 }, () => this.api.get())).subscribe({
      next: (results) => {
        this.results.set(results);
        this.status.set('done');
      },
      error: (error: { status?: number }) =>
        this.status.set(`failed: ${error.status ?? 'unknown'}`),
    });
  }
}
