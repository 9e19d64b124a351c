import { ChangeDetectionStrategy, Component, inject, signal } from '@angular/core';
import { NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButtonModule } from '@angular/material/button';
import { MAT_DIALOG_DATA, MatDialogModule, MatDialogRef } from '@angular/material/dialog';
import { MatFormFieldModule } from '@angular/material/form-field';
import { MatInputModule } from '@angular/material/input';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { type ApiError, type User, UsersService, getFieldErrors } from 'ngx-token-refresh/client';
import type { Observable } from 'rxjs';

import { writeErrorMessage } from './write-error-message';

/** Create (no user) or edit (a user) form; closes with the saved name once the server accepted it. */
@Component({
  selector: 'app-user-form-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ReactiveFormsModule,
    MatButtonModule,
    MatDialogModule,
    MatFormFieldModule,
    MatInputModule,
    MatProgressBarModule,
  ],
  template: `
    <h2 mat-dialog-title>{{ user ? 'Edit user #' + user.id : 'New user' }}</h2>
    <form [formGroup]="form" (ngSubmit)="save()">
      <mat-dialog-content>
        <mat-form-field appearance="outline">
          <mat-label>Name</mat-label>
          <input matInput formControlName="name" data-testid="user-form-name" />
          @if (form.controls.name.errors?.['server']; as message) {
            <mat-error data-testid="field-error-name">{{ message }}</mat-error>
          } @else if (form.controls.name.hasError('required')) {
            <mat-error>A name is required.</mat-error>
          }
        </mat-form-field>
        <mat-form-field appearance="outline">
          <mat-label>E-mail</mat-label>
          <input matInput formControlName="email" data-testid="user-form-email" />
          @if (form.controls.email.errors?.['server']; as message) {
            <mat-error data-testid="field-error-email">{{ message }}</mat-error>
          } @else if (form.controls.email.hasError('required')) {
            <mat-error>An e-mail is required.</mat-error>
          }
        </mat-form-field>
        @if (formError(); as message) {
          <p class="error-text" role="alert" data-testid="form-error">{{ message }}</p>
        }
      </mat-dialog-content>
      <mat-dialog-actions align="end">
        <button mat-button type="button" mat-dialog-close>Cancel</button>
        <button mat-flat-button type="submit" [disabled]="busy()" data-testid="user-form-save">Save</button>
      </mat-dialog-actions>
      @if (busy()) {
        <mat-progress-bar mode="indeterminate" aria-label="Saving" />
      }
    </form>
  `,
  styles: `
    mat-form-field {
      display: block;
      /* 20rem, or the dialog's width on a phone. */
      width: 20rem;
      max-width: 100%;
    }
  `,
})
export class UserFormDialog {
  private readonly users = inject(UsersService);
  private readonly dialog = inject<MatDialogRef<UserFormDialog, string>>(MatDialogRef);

  /** The user being edited, or null for a new one. */
  protected readonly user = inject<User | null>(MAT_DIALOG_DATA);
  // Only "required" is checked here: the server's validation (format, uniqueness) is what the
  // showcase demonstrates, with its messages shown on the fields.
  protected readonly form = inject(NonNullableFormBuilder).group({
    name: [this.user?.name ?? '', Validators.required],
    email: [this.user?.email ?? '', Validators.required],
  });
  protected readonly busy = signal(false);
  protected readonly formError = signal<string | null>(null);

  protected save(): void {
    this.form.markAllAsTouched();
    if (this.form.invalid) return;
    this.busy.set(true);
    this.formError.set(null);
    const value = this.form.getRawValue();
    const request: Observable<unknown> = this.user ? this.users.replace(this.user.id, value) : this.users.create(value);
    request.subscribe({
      complete: () => this.dialog.close(value.name),
      error: (error: ApiError) => {
        this.busy.set(false);
        const fields = getFieldErrors(error);
        let shownOnField = false;
        for (const [name, messages] of Object.entries(fields)) {
          const control = this.form.get(name);
          if (!control) continue;
          control.setErrors({ server: messages.join(' ') });
          control.markAsTouched();
          shownOnField = true;
        }
        if (!shownOnField)
          this.formError.set(writeErrorMessage(error, this.user ? 'save the changes' : 'create the user'));
      },
    });
  }
}
