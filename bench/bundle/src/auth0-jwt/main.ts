import { bootstrapApplication } from '@angular/platform-browser';

import { auth0Jwt } from '../../../src/contenders/auth0-jwt';
import { App } from '../app';
import { baseProviders } from '../providers';

// The same wiring as in the timed benchmarks.
bootstrapApplication(App, { providers: [...baseProviders, ...auth0Jwt.providers()] }).catch((error: unknown) =>
  console.error(error),
);
