import { Routes } from '@angular/router';
import { BffAccountPage } from './bff-account-page';
import { HomePage } from './home-page';
import { NotFoundPage } from './not-found-page';

/**
 * The routes of the `bff` build: `/` (where the provider's sign-out sends the browser back), the
 * account page, and a page for any other path.
 */
export const routes: Routes = [
  { path: '', component: HomePage },
  { path: 'bff-account', component: BffAccountPage },
  { path: '**', component: NotFoundPage },
];
