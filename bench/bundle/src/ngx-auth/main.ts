import { bootstrapApplication } from '@angular/platform-browser';

import { ngxAuth } from '../../../src/contenders/ngx-auth';
import { App } from '../app';
import { baseProviders } from '../providers';

// The same wiring as in the timed benchmarks.
bootstrapApplication(App, { providers: [...baseProviders, ...ngxAuth.providers()] }).catch((error: unknown) =>
  console.error(error),
);
