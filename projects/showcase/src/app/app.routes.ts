import type { Routes } from '@angular/router';

import { sessionGuard } from './session-hint';

/**
 * Pages of the showcase; everything but the login page needs a session (authGuard, which restores it
 * after a reload, behind sessionGuard, which skips that restore when no session can exist).
 */
export const routes: Routes = [
  {
    path: 'login',
    title: 'Sign in · ngx-token-refresh',
    loadComponent: () => import('./pages/login-page').then((m) => m.LoginPage),
  },
  {
    path: 'users',
    title: 'Users · ngx-token-refresh',
    canActivate: [sessionGuard],
    loadComponent: () => import('./pages/users-page').then((m) => m.UsersPage),
  },
  {
    path: 'lab',
    title: 'Auth lab · ngx-token-refresh',
    canActivate: [sessionGuard],
    loadComponent: () => import('./pages/auth-lab-page').then((m) => m.AuthLabPage),
  },
  { path: '', pathMatch: 'full', redirectTo: 'lab' },
  { path: '**', redirectTo: 'lab' },
];
