import { ChangeDetectionStrategy, Component, inject, input, signal } from '@angular/core';
import { takeUntilDestroyed } from '@angular/core/rxjs-interop';
import { NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButtonModule } from '@angular/material/button';
import { MatCardModule } from '@angular/material/card';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { Router } from '@angular/router';
import { injectTokenRefresh } from 'ngx-token-refresh';
import { type ApiError, AuthClient, safeReturnUrl } from 'ngx-token-refresh/client';

import { DemoServerState } from '../backend/demo-server-state';
import { LAB_BACKEND } from '../lab/lab-backend';

/** Sign-in page, with the demo accounts one click away. */
@Component({
  selector: 'app-login-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ReactiveFormsModule,
    MatButtonModule,
    MatCardModule,
    MatFormFieldModule,
    MatInputModule,
    MatProgressBarModule,
  ],
  template: `
    <main class="page login">
      <mat-card appearance="outlined">
        <mat-card-header>
          <mat-card-title>Sign in</mat-card-title>
          <mat-card-subtitle>to the ngx-token-refresh showcase</mat-card-subtitle>
        </mat-card-header>
        @if (reason() === 'expired') {
          <p class="notice" role="status" data-testid="session-message">
            Your session has ended (the refresh token was revoked or expired). Please sign in again.
          </p>
        } @else if (reason() === 'signed-out') {
          <p class="notice" role="status" data-testid="session-message">You signed out in another tab.</p>
        } @else if (reason() === 'idle') {
          <p class="notice" role="status" data-testid="session-message">
            You were signed out because nobody used the app for a while.
          </p>
        }
        <form [formGroup]="form" (ngSubmit)="submit()">
          <mat-card-content>
            <mat-form-field appearance="outline">
              <mat-label>Username</mat-label>
              <input matInput formControlName="username" autocomplete="username" data-testid="username" />
            </mat-form-field>
            <mat-form-field appearance="outline">
              <mat-label>Password</mat-label>
              <input
                matInput
                type="password"
                formControlName="password"
                autocomplete="current-password"
                data-testid="password"
              />
            </mat-form-field>
            @if (error(); as message) {
              <p class="error-text" role="alert" data-testid="login-error">{{ message }}</p>
            }
          </mat-card-content>
          <mat-card-actions align="end">
            <button mat-flat-button type="submit" [disabled]="busy() || form.invalid" data-testid="login-submit">
              Sign in
            </button>
          </mat-card-actions>
          @if (busy()) {
            <mat-progress-bar mode="indeterminate" aria-label="Signing in" />
          }
        </form>
      </mat-card>

      <mat-card appearance="outlined" class="accounts">
        <mat-card-header>
          <mat-card-title>Demo accounts</mat-card-title>
          <mat-card-subtitle>
            @if (inMemory) {
              The backend is an in-memory mock running in this page.
            } @else {
              The reference server created them on its first start.
            }
          </mat-card-subtitle>
        </mat-card-header>
        <mat-card-content>
          <table>
            <thead>
              <tr>
                <th scope="col">Username</th>
                <th scope="col">Password</th>
                <th scope="col">Role</th>
                <th scope="col"><span class="visually-hidden">Use</span></th>
              </tr>
            </thead>
            <tbody>
              @for (account of accounts; track account.username) {
                <tr>
                  <td>
                    <code>{{ account.username }}</code>
                  </td>
                  <td>
                    <code>{{ account.password }}</code>
                  </td>
                  <td>
                    <span class="role">{{ account.role }}</span>
                    <span class="muted rights">{{
                      account.role === 'admin' ? 'may create, edit, delete' : 'read only'
                    }}</span>
                  </td>
                  <td class="use">
                    <button
                      mat-stroked-button
                      type="button"
                      (click)="use(account.username, account.password)"
                      [attr.aria-label]="'Use ' + account.username"
                    >
                      Use
                    </button>
                  </td>
                </tr>
              }
            </tbody>
          </table>
        </mat-card-content>
      </mat-card>
    </main>
  `,
  styles: `
    .login {
      display: grid;
      gap: 1.5rem;
      max-width: 28rem;
    }
    mat-form-field {
      display: block;
    }
    .notice {
      margin: 0 1rem;
      padding: 0.75rem 1rem;
      border-radius: 0.5rem;
      background: var(--mat-sys-error-container);
      color: var(--mat-sys-on-error-container);
    }
    table {
      width: 100%;
      border-collapse: collapse;
      font-size: 0.875rem;
    }
    th,
    td {
      padding: 0.5rem 0.5rem 0.5rem 0;
      text-align: start;
      vertical-align: middle;
    }
    th {
      font-weight: 600;
      border-bottom: 1px solid var(--mat-sys-outline-variant);
    }
    tbody tr + tr td {
      border-top: 1px solid var(--mat-sys-outline-variant);
    }
    .role {
      display: block;
      font-weight: 500;
    }
    .rights {
      display: block;
      font-size: 0.8125rem;
    }
    .use {
      padding-right: 0;
      text-align: end;
    }
  `,
})
export class LoginPage {
  private readonly auth = inject(AuthClient);
  private readonly router = inject(Router);

  /**
   * Why the user landed here, from the query string: `expired` after a failed refresh, `signed-out`
   * after a sign-out in another tab.
   */
  readonly reason = input<string>();
  /** Where to go after signing in, from the query string (checked by safeReturnUrl). */
  readonly returnUrl = input<string>();

  protected readonly accounts = inject(DemoServerState).accounts;
  /** Whether the in-memory backend runs in the page (else the reference server answers). */
  protected readonly inMemory = inject(LAB_BACKEND) !== null;
  protected readonly form = inject(NonNullableFormBuilder).group({
    username: ['', Validators.required],
    password: ['', Validators.required],
  });
  protected readonly busy = signal(false);
  protected readonly error = signal<string | null>(null);

  constructor() {
    // Signed in in another tab (withCrossTabSync shares the token): this tab follows, to where it was going.
    injectTokenRefresh()
      .events.pipe(takeUntilDestroyed())
      .subscribe((event) => {
        if (event.type === 'tokenReceived') void this.router.navigateByUrl(safeReturnUrl(this.returnUrl(), '/lab'));
      });
  }

  protected use(username: string, password: string): void {
    this.form.setValue({ username, password });
  }

  protected submit(): void {
    if (this.form.invalid) return;
    this.busy.set(true);
    this.error.set(null);
    this.auth.login(this.form.getRawValue()).subscribe({
      next: () => {
        this.busy.set(false);
        void this.router.navigateByUrl(safeReturnUrl(this.returnUrl(), '/lab'));
      },
      error: (error: ApiError) => {
        this.busy.set(false);
        this.error.set(error.code === 'InvalidCredentials' ? 'Wrong username or password.' : error.message);
      },
    });
  }
}
