import { bootstrapApplication } from '@angular/platform-browser';
import { provideRouter } from '@angular/router';

import { ngxAuth } from '../../../src/contenders/ngx-auth';
import { App } from '../app';
import { baseProviders } from '../providers';

// As ngx-auth, in an app that routes (compared with base-router).
bootstrapApplication(App, { providers: [...baseProviders, provideRouter([]), ...ngxAuth.providers()] }).catch(
  (error: unknown) => console.error(error),
);
