// The entry point of the showcase's `bff` build (angular.json: `ng build showcase -c production,bff`),
// in place of main.ts: the same look, another app. Its server is projects/showcase/bff/serve-bff.ts.
import { bootstrapApplication } from '@angular/platform-browser';

import { BffApp } from './bff-app';
import { bffAppConfig } from './bff-app.config';

bootstrapApplication(BffApp, bffAppConfig).catch((error: unknown) => console.error(error));
