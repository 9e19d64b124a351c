import { Component, inject, signal } from '@angular/core';
import { type Profile, ProfileApi } from './profile-api';

/** Rendered on the server per request: one API call through the interceptor. */
@Component({
  selector: 'app-profile-page',
  template: `
    @if (profile(); as profile) {
      <p id="profile-user">{{ profile.user }}</p>
      <p id="profile-token">{{ profile.token }}</p>
    } @else if (failed()) {
      <p id="profile-error">{{ failed() }}</p>
    } @else {
      <p>Loading…</p>
    }
  `,
})
export class ProfilePage {
  protected readonly profile = signal<Profile | null>(null);
  protected readonly failed = signal<string | null>(null);

  constructor() {
    inject(ProfileApi)
      .get()
      .subscribe({
        next: (profile) => this.profile.set(profile),
        error: (error: { status?: number }) =>
          this.failed.set(`failed: ${error.status ?? 'unknown'}`),
      });
  }
}
