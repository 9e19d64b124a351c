import type { Routes } from '@angular/router';

import { CallbackPage } from './callback-page';
import { HomePage } from './home-page';

export const routes: Routes = [
  { path: '', component: HomePage, title: 'ngx-token-refresh with an OpenID Provider' },
  { path: 'callback', component: CallbackPage, title: 'Signing in' },
  { path: '**', redirectTo: '' },
];
