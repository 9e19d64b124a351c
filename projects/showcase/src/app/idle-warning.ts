import { Injectable, effect, inject, untracked } from '@angular/core';
import { MatDialog, type MatDialogRef } from '@angular/material/dialog';
import { injectIdleTimeout } from 'ngx-token-refresh';

import { IdleWarningDialog } from './pages/idle-warning-dialog';

/**
 * Shows the idle warning dialog while the library says `warning`, in every tab, and closes it when
 * somebody is active again (in any tab) or the session ended. Started by the app's root component.
 */
@Injectable({ providedIn: 'root' })
export class IdleWarning {
  private readonly dialog = inject(MatDialog);
  private readonly idle = injectIdleTimeout();
  private open: MatDialogRef<IdleWarningDialog> | null = null;

  constructor() {
    effect(() => {
      const warning = this.idle.state() === 'warning';
      untracked(() => {
        if (warning && !this.open) {
          this.open = this.dialog.open(IdleWarningDialog, { role: 'alertdialog', autoFocus: 'dialog' });
          this.open.afterClosed().subscribe(() => (this.open = null));
        } else if (!warning && this.open) {
          this.open.close();
        }
      });
    });
  }
}
