import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { MatButtonModule } from '@angular/material/button';
import { MatDialogModule, MatDialogRef } from '@angular/material/dialog';
import { injectIdleTimeout } from 'ngx-token-refresh';
import { Router } from '@angular/router';
import { AuthClient } from 'ngx-token-refresh/client';

/**
 * The warning before an idle sign-out (`withIdleTimeout()`): the seconds left, from the library's
 * signal, "Stay signed in" (one call) and "Sign out". `IdleWarning` opens it and closes it.
 */
@Component({
  selector: 'app-idle-warning-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButtonModule, MatDialogModule],
  template: `
    <h2 mat-dialog-title>Are you still there?</h2>
    <mat-dialog-content>
      <p>
        Nobody has used this app for a while, in any of its tabs. You will be signed out in
        <strong data-testid="idle-seconds">{{ seconds() }}</strong> s.
      </p>
    </mat-dialog-content>
    <mat-dialog-actions align="end">
      <button mat-button (click)="signOut()" data-testid="idle-sign-out">Sign out</button>
      <button mat-flat-button (click)="stay()" data-testid="idle-stay">Stay signed in</button>
    </mat-dialog-actions>
  `,
})
export class IdleWarningDialog {
  private readonly idle = injectIdleTimeout();
  private readonly auth = inject(AuthClient);
  private readonly dialog = inject(MatDialogRef<IdleWarningDialog>);
  private readonly router = inject(Router);
  protected readonly seconds = computed(() => Math.ceil((this.idle.remaining() ?? 0) / 1000));

  protected stay(): void {
    this.idle.stayActive();
    this.dialog.close();
  }

  protected signOut(): void {
    this.dialog.close();
    this.auth.logout();
    void this.router.navigate(['/login']);
  }
}
