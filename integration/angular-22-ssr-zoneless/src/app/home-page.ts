import { Component } from '@angular/core';
import { RouterLink } from '@angular/router';

/** Static: prerendered at build time. */
@Component({
  selector: 'app-home-page',
  imports: [RouterLink],
  template: `<p id="home">
    Home. <a routerLink="/profile">Profile</a> <a routerLink="/burst">Burst</a>
  </p>`,
})
export class HomePage {}
