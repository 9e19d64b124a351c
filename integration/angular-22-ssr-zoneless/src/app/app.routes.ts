import { Routes } from '@angular/router';
import { BurstPage } from './burst-page';
import { HomePage } from './home-page';
import { ProfilePage } from './profile-page';

export const routes: Routes = [
  { path: '', component: HomePage },
  { path: 'profile', component: ProfilePage },
  { path: 'burst', component: BurstPage },
];
