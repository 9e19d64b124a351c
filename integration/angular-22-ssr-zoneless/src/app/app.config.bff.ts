import { provideHttpClient, withFetch, withInterceptors } from '@angular/common/http';
import { ApplicationConfig, provideBrowserGlobalErrorListeners } from '@angular/core';
import { provideClientHydration } from '@angular/platform-browser';
import { provideRouter } from '@angular/router';
import { bffSessionInterceptor, provideBffSession } from 'ngx-token-refresh/client';
import { routes } from './app.routes.bff';

/**
 * The app with a backend for frontend (`ng build -c production,bff`, in place of app.config.ts):
 * `createBff` in server.ts holds the tokens, and the browser holds none. Browser and server alike.
 */
export const appConfig: ApplicationConfig = {
  providers: [
    provideBrowserGlobalErrorListeners(),
    provideRouter(routes),
    provideClientHydration(),
    // withFetch(): on the server, the XHR backend would send no Cookie with the render's own calls.
    provideHttpClient(withFetch(), withInterceptors([bffSessionInterceptor])),
    provideBffSession({
      // A server render calls this very server (the port server.ts listens on), not the page's
      // public URL; the browser has no serverUrl.
      serverUrl:
        typeof ngServerMode !== 'undefined' && ngServerMode
          ? `http://127.0.0.1:${process.env['PORT'] || 4000}`
          : undefined,
    }),
  ],
};
