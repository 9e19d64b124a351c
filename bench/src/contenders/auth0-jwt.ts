import { provideHttpClient, withInterceptorsFromDi } from '@angular/common/http';
import { importProvidersFrom, inject } from '@angular/core';
import { JWT_OPTIONS, type JwtConfig, JwtModule } from '@auth0/angular-jwt';

import type { Contender } from './contender';
import { Session } from './session';

/** Its documented set-up, with the options from a factory so the token comes from a service. */
function jwtOptions(): JwtConfig {
  const session = inject(Session);
  return { tokenGetter: () => session.token, allowedDomains: ['api.example.com'] };
}

/** @auth0/angular-jwt's `JwtInterceptor` (a class interceptor): attaches the token, never refreshes. */
export const auth0Jwt: Contender = {
  id: 'auth0-jwt',
  label: '@auth0/angular-jwt JwtInterceptor',
  refreshes: false,
  providers: () => [
    provideHttpClient(withInterceptorsFromDi()),
    importProvidersFrom(JwtModule.forRoot({ jwtOptionsProvider: { provide: JWT_OPTIONS, useFactory: jwtOptions } })),
  ],
  login: (injector, token) => void (injector.get(Session).token = token),
};
