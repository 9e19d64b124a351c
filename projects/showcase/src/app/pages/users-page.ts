import { ChangeDetectionStrategy, Component, computed, inject, linkedSignal, signal } from '@angular/core';
import { rxResource } from '@angular/core/rxjs-interop';
import { MatButtonModule } from '@angular/material/button';
import { MatDialog } from '@angular/material/dialog';
import { MatPaginatorModule, type PageEvent } from '@angular/material/paginator';
import { MatProgressBarModule } from '@angular/material/progress-bar';
import { MatSnackBar } from '@angular/material/snack-bar';
import { MatTableModule } from '@angular/material/table';
import { parseJwtClaims } from 'ngx-token-refresh';
import { type ApiError, AuthClient, type Page, type User, UsersService } from 'ngx-token-refresh/client';
import { filter, switchMap } from 'rxjs';

import { ConfirmDialog } from './confirm-dialog';
import { UserFormDialog } from './user-form-dialog';
import { writeErrorMessage } from './write-error-message';

/**
 * The users table: server-side paging, create, edit and delete through UsersService, each change
 * confirmed by a snack bar.
 */
@Component({
  selector: 'app-users-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButtonModule, MatPaginatorModule, MatProgressBarModule, MatTableModule],
  template: `
    <main class="page">
      <header>
        <h1>Users</h1>
        @if (canWrite()) {
          <button mat-flat-button (click)="edit(null)" data-testid="new-user">New user</button>
        }
      </header>
      @if (message(); as text) {
        <p class="error-text" role="alert" data-testid="users-message">{{ text }}</p>
      }
      <section class="table">
        <mat-progress-bar
          [mode]="users.isLoading() ? 'indeterminate' : 'determinate'"
          [value]="0"
          aria-label="Loading the users"
        />
        @if (users.error(); as error) {
          <div class="state" role="alert" data-testid="users-error">
            <p>Could not load the users: {{ error.message }}</p>
            <button mat-stroked-button (click)="users.reload()">Try again</button>
          </div>
        } @else if (rows().length === 0 && users.isLoading()) {
          <div class="state" data-testid="users-loading"><p>Loading…</p></div>
        } @else if (rows().length === 0) {
          <div class="state" data-testid="users-empty"><p>No users on this page.</p></div>
        } @else {
          <div class="scroll" tabindex="0" role="region" aria-label="Users; scrolls sideways on a narrow screen">
            <table mat-table [dataSource]="rows()" data-testid="users-table">
              <ng-container matColumnDef="id">
                <th mat-header-cell *matHeaderCellDef>#</th>
                <td mat-cell *matCellDef="let user">{{ user.id }}</td>
              </ng-container>
              <ng-container matColumnDef="name">
                <th mat-header-cell *matHeaderCellDef>Name</th>
                <td mat-cell *matCellDef="let user">{{ user.name }}</td>
              </ng-container>
              <ng-container matColumnDef="email">
                <th mat-header-cell *matHeaderCellDef>E-mail</th>
                <td mat-cell *matCellDef="let user">{{ user.email }}</td>
              </ng-container>
              <ng-container matColumnDef="actions">
                <th mat-header-cell *matHeaderCellDef><span class="visually-hidden">Actions</span></th>
                <td mat-cell *matCellDef="let user" class="actions">
                  @if (canWrite()) {
                    <button mat-button (click)="edit(user)" [attr.data-testid]="'edit-user-' + user.id">Edit</button>
                    <button mat-button (click)="remove(user)" [attr.data-testid]="'delete-user-' + user.id">
                      Delete
                    </button>
                  }
                </td>
              </ng-container>
              <tr mat-header-row *matHeaderRowDef="columns"></tr>
              <tr mat-row *matRowDef="let row; columns: columns" data-testid="user-row"></tr>
            </table>
          </div>
        }
        <mat-paginator
          [length]="total()"
          [pageIndex]="pageIndex()"
          [pageSize]="pageSize()"
          [pageSizeOptions]="[5, 10, 25]"
          (page)="turn($event)"
          aria-label="Pages of users"
          data-testid="paginator"
        />
      </section>
    </main>
  `,
  styles: `
    header {
      display: flex;
      align-items: center;
      justify-content: space-between;
    }
    .table {
      border: 1px solid var(--mat-sys-outline-variant);
      border-radius: 0.75rem;
      overflow: hidden;
      background: var(--mat-sys-surface);
    }
    /* On a narrow screen the table scrolls inside its card, never the page. */
    .scroll {
      overflow-x: auto;
      /* Holds the visually hidden header text too, which would otherwise widen the page. */
      position: relative;
    }
    .mat-column-name,
    .mat-column-email {
      white-space: nowrap;
    }
    .scroll:focus-visible {
      outline: 2px solid var(--mat-sys-primary);
      outline-offset: -2px;
    }
    .state {
      padding: 2rem;
      text-align: center;
    }
    .actions {
      text-align: right;
      white-space: nowrap;
    }
  `,
})
export class UsersPage {
  private readonly api = inject(UsersService);
  private readonly auth = inject(AuthClient);
  private readonly dialog = inject(MatDialog);
  private readonly snackBar = inject(MatSnackBar);

  protected readonly columns = ['id', 'name', 'email', 'actions'];
  protected readonly pageIndex = signal(0);
  protected readonly pageSize = signal(10);
  protected readonly message = signal<string | null>(null);

  /** The current page, loaded again whenever the page, its size or `reload()` asks. */
  protected readonly users = rxResource({
    params: () => ({ page: this.pageIndex() + 1, pageSize: this.pageSize() }),
    stream: ({ params }) => this.api.list(params),
  });
  /** The page on screen: the last one loaded, kept while the next loads so the table does not jump. */
  private readonly shown = linkedSignal<Page<User> | undefined, Page<User> | undefined>({
    source: () => (this.users.hasValue() ? this.users.value() : undefined),
    computation: (page, previous) => page ?? previous?.value,
  });
  protected readonly rows = computed<readonly User[]>(() => this.shown()?.data ?? []);
  protected readonly total = computed(() => this.shown()?.pagination.totalItems ?? 0);
  /** Viewers may only read: the write buttons are for admins (the server enforces it either way). */
  protected readonly canWrite = computed(() => parseJwtClaims(this.auth.accessToken())?.['role'] === 'admin');

  protected turn(event: PageEvent): void {
    this.pageIndex.set(event.pageIndex);
    this.pageSize.set(event.pageSize);
  }

  protected edit(user: User | null): void {
    this.message.set(null);
    this.dialog
      .open<UserFormDialog, User | null, string>(UserFormDialog, { data: user, autoFocus: 'first-tabbable' })
      .afterClosed()
      .subscribe((savedName) => {
        if (savedName === undefined) return;
        this.users.reload();
        this.toast(user ? `Saved the changes to ${savedName}.` : `Created ${savedName}.`);
      });
  }

  protected remove(user: User): void {
    this.message.set(null);
    this.dialog
      .open(ConfirmDialog, {
        data: { title: 'Delete user', message: `Delete ${user.name} (${user.email})?`, confirm: 'Delete' },
      })
      .afterClosed()
      .pipe(
        filter((confirmed) => confirmed === true),
        switchMap(() => this.api.delete(user.id)),
      )
      .subscribe({
        next: () => {
          this.users.reload();
          this.toast(`Deleted ${user.name}.`);
        },
        error: (error: ApiError) => this.message.set(writeErrorMessage(error, `delete ${user.name}`)),
      });
  }

  /** A short confirmation that goes away by itself (the snack bar is announced to screen readers). */
  private toast(text: string): void {
    this.snackBar.open(text, 'OK', { duration: 4000 });
  }
}
