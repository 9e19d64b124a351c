import { bootstrapApplication } from '@angular/platform-browser';

import { attachOnly } from '../../../src/contenders/attach-only';
import { App } from '../app';
import { baseProviders } from '../providers';

// The same wiring as in the timed benchmarks.
bootstrapApplication(App, { providers: [...baseProviders, ...attachOnly.providers()] }).catch((error: unknown) =>
  console.error(error),
);
