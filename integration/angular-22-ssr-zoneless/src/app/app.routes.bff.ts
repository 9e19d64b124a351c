import { Routes } from '@angular/router';
import { BffAccountPage } from './bff-account-page';
import { HomePage } from './home-page';

/** The routes of the `bff` build: `/` (where the provider's sign-out sends the browser back) and the account page. */
export const routes: Routes = [
  { path: '', component: HomePage },
  { path: 'bff-account', component: BffAccountPage },
];
