/**
 * @jest-environment node
 */
import { HttpClient, provideHttpClient, withFetch, withInterceptors } from '@angular/common/http';
import { Component, inject, provideAppInitializer, provideZonelessChangeDetection } from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { provideServerRendering, renderApplication } from '@angular/platform-server';
import {
  injectIdleTimeout,
  injectTokenRefresh,
  provideTokenRefresh,
  tokenRefreshInterceptor,
  withIdleTimeout,
  withProactiveRefresh,
} from 'ngx-token-refresh';

import { runAsServerBundle, textOf } from '../internal/server-render.spec-helper';

// withIdleTimeout in a real server render (platform-server): a render is nobody's activity, so the
// feature does nothing there: no listener, no timer holding the render up, no session ended.

@Component({
  selector: 'app-root',
  template: `<p id="state">{{ idle.state() }}</p>
    <p id="token">{{ token() }}</p>`,
})
class App {
  protected readonly idle = injectIdleTimeout();
  protected readonly token = injectTokenRefresh().token;
}

describe('withIdleTimeout under server rendering', () => {
  runAsServerBundle();

  it('renders with a session and does nothing: state off, the token kept, no signOut, the render not held up', async () => {
    const signOuts: string[] = [];
    const config = {
      providers: [
        provideZonelessChangeDetection(),
        provideServerRendering(),
        provideHttpClient(withFetch(), withInterceptors([tokenRefreshInterceptor])),
        provideTokenRefresh(
          {
            refreshApiCall: () => inject(HttpClient).post('http://127.0.0.1:1/refresh', null, { observe: 'response' }),
            extractToken: () => 'never',
          },
          // 1 s: a render that waited for any timer of the feature would end the session in it.
          withIdleTimeout({ idle: 1000, signOut: (token) => signOuts.push(token) }),
          withProactiveRefresh(),
        ),
        // The render's session (as withServerSession() would put it in place).
        provideAppInitializer(() => injectTokenRefresh().setToken('render-token')),
      ],
    };
    const started = Date.now();
    const html = await renderApplication((context) => bootstrapApplication(App, config, context), {
      document: '<html><head></head><body><app-root></app-root></body></html>',
    });
    expect(textOf(html, 'state')).toBe('off');
    expect(textOf(html, 'token')).toBe('render-token');
    expect(signOuts).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
