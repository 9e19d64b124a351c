import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { RouterOutlet } from '@angular/router';

import { AUTHORIZATION_SERVER } from './authorization-server';

/** The frame: which provider this build talks to, and the page. */
@Component({
  selector: 'app-root',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterOutlet],
  template: `
    <h1>ngx-token-refresh with an OpenID Provider</h1>
    <p>
      Provider: <code data-testid="issuer">{{ issuer }}</code>
    </p>
    <router-outlet />
  `,
})
export class App {
  protected readonly issuer = inject(AUTHORIZATION_SERVER).issuer;
}
