import { provideHttpClient } from '@angular/common/http';
import { bootstrapApplication } from '@angular/platform-browser';

import { App } from '../app';
import { baseProviders } from '../providers';

// The baseline: HttpClient with no interceptor.
bootstrapApplication(App, { providers: [...baseProviders, provideHttpClient()] }).catch((error: unknown) =>
  console.error(error),
);
