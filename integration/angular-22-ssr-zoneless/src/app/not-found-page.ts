import { Component } from '@angular/core';

/**
 * The `bff` build's catch-all route, as most apps have one: every path renders a page, so a BFF
 * mounted after the Angular engine would never see its own routes.
 */
@Component({
  selector: 'app-not-found-page',
  template: `<p id="not-found">Not found.</p>`,
})
export class NotFoundPage {}
