import { provideHttpClient } from '@angular/common/http';
import { bootstrapApplication } from '@angular/platform-browser';
import { provideRouter } from '@angular/router';

import { App } from '../app';
import { baseProviders } from '../providers';

// The baseline of an app that routes: HttpClient and the Router, no interceptor.
bootstrapApplication(App, { providers: [...baseProviders, provideRouter([]), provideHttpClient()] }).catch(
  (error: unknown) => console.error(error),
);
