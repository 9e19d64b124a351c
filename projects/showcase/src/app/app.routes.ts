import type { Routes } from '@angular/router';
import { authGuard } from 'ngx-token-refresh/router';

/** Pages of the showcase; everything but the login page needs a session. */
export const routes: Routes = [
  {
    path: 'login',
    title: 'Sign in · ngx-token-refresh',
    loadComponent: () => import('./pages/login-page').then((m) => m.LoginPage),
  },
  {
    path: 'users',
    title: 'Users · ngx-token-refresh',
    canActivate: [authGuard],
    loadComponent: () => import('./pages/users-page').then((m) => m.UsersPage),
  },
  {
    path: 'lab',
    title: 'Auth lab · ngx-token-refresh',
    canActivate: [authGuard],
    loadComponent: () => import('./pages/auth-lab-page').then((m) => m.AuthLabPage),
  },
  { path: '', pathMatch: 'full', redirectTo: 'lab' },
  { path: '**', redirectTo: 'lab' },
];
