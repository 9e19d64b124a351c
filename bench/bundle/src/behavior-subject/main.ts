import { bootstrapApplication } from '@angular/platform-browser';

import { behaviorSubject } from '../../../src/contenders/behavior-subject';
import { App } from '../app';
import { baseProviders } from '../providers';

// The same wiring as in the timed benchmarks.
bootstrapApplication(App, { providers: [...baseProviders, ...behaviorSubject.providers()] }).catch((error: unknown) =>
  console.error(error),
);
