import { RenderMode, ServerRoute } from '@angular/ssr';

/**
 * The `bff` build's server routes: every page rendered per request, since who is signed in comes
 * with the request's session cookie (a prerendered page renders signed out).
 */
export const serverRoutes: ServerRoute[] = [
  {
    path: '**',
    renderMode: RenderMode.Server,
  },
];
