import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { MatButtonModule } from '@angular/material/button';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { MatToolbarModule } from '@angular/material/toolbar';
import { Router, RouterLink, RouterLinkActive, RouterOutlet } from '@angular/router';
import { injectTokenRefresh, parseJwtClaims } from 'ngx-token-refresh';
import { AuthClient } from 'ngx-token-refresh/client';

import { IdleWarning } from './idle-warning';

/** The showcase's frame: navigation, who is signed in, sign-out, and a bar while a refresh runs. */
@Component({
  selector: 'app-root',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButtonModule, MatProgressBarModule, MatToolbarModule, RouterLink, RouterLinkActive, RouterOutlet],
  template: `
    <mat-toolbar>
      <span class="brand">ngx-token-refresh</span>
      @if (auth.isAuthenticated()) {
        <nav>
          <a mat-button routerLink="/lab" routerLinkActive="active" ariaCurrentWhenActive="page">Auth lab</a>
          <a mat-button routerLink="/users" routerLinkActive="active" ariaCurrentWhenActive="page">Users</a>
        </nav>
        <span class="spacer"></span>
        @if (username(); as name) {
          <span class="who" data-testid="signed-in-as"><span class="who-prefix">Signed in as </span>{{ name }}</span>
        }
        <!-- On a narrow screen only the icon shows; the text stays as the button's accessible name. -->
        <button mat-stroked-button (click)="logout()" data-testid="logout">
          <svg class="logout-icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
            <path
              fill="currentColor"
              d="M17 7l-1.41 1.41L18.17 11H8v2h10.17l-2.58 2.58L17 17l5-5zM4 5h8V3H4c-1.1 0-2 .9-2 2v14c0 1.1.9 2 2 2h8v-2H4V5z"
            />
          </svg>
          <span class="logout-text">Sign out</span>
        </button>
      }
    </mat-toolbar>
    @if (refreshing()) {
      <mat-progress-bar mode="indeterminate" aria-label="Refreshing the access token" />
    }
    <router-outlet />
  `,
  styles: `
    mat-toolbar {
      gap: 1rem;
      background: var(--mat-sys-surface-container);
    }
    nav {
      display: flex;
      gap: 0.25rem;
    }
    .logout-icon {
      display: none;
    }
    /* A phone: the links go to a second line, and "Sign out" becomes an icon with the same name. */
    @media (max-width: 40rem) {
      mat-toolbar {
        flex-wrap: wrap;
        height: auto;
        min-height: 3.5rem;
        gap: 0.25rem 0.5rem;
        padding-block: 0.25rem;
      }
      .brand {
        font-size: 1.125rem;
      }
      nav {
        order: 1;
        flex-basis: 100%;
      }
      .who-prefix,
      .logout-text {
        position: absolute;
        width: 1px;
        height: 1px;
        overflow: hidden;
        clip: rect(0 0 0 0);
        white-space: nowrap;
      }
      .logout-icon {
        display: block;
      }
      [data-testid='logout'] {
        min-width: 0;
        padding-inline: 0.75rem;
      }
    }
    .brand {
      font-weight: 600;
    }
    .spacer {
      flex: 1;
    }
    .who {
      font-size: 0.875rem;
    }
    .active {
      background: var(--mat-sys-secondary-container);
    }
    mat-progress-bar {
      position: absolute;
    }
  `,
})
export class App {
  protected readonly auth = inject(AuthClient);
  private readonly router = inject(Router);
  protected readonly refreshing = injectTokenRefresh().isRefreshing;
  /** The dialog before an idle sign-out, in every tab (withIdleTimeout in app.config.ts). */
  private readonly idleWarning = inject(IdleWarning);
  protected readonly username = computed(() => {
    const sub = parseJwtClaims(this.auth.accessToken())?.sub;
    return typeof sub === 'string' ? sub : '';
  });

  protected logout(): void {
    this.auth.logout();
    void this.router.navigate(['/login']);
  }
}
