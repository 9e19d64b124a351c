import { bootstrapApplication } from '@angular/platform-browser';

import { App } from './app/app';
import { createAppConfig } from './app/app.config';
import { loadDemoSetup } from './app/authorization-server';

// The provider's endpoints are discovered first: provideOAuthRefresh needs the token endpoint.
loadDemoSetup()
  .then((setup) => bootstrapApplication(App, createAppConfig(setup)))
  .catch((error: unknown) => {
    console.error(error);
    document.body.textContent = `The application could not start: ${error instanceof Error ? error.message : String(error)}`;
  });
