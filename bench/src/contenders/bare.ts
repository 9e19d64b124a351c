import { provideHttpClient } from '@angular/common/http';

import type { Contender } from './contender';

/** HttpClient with no interceptor: the floor every other contender is measured against. */
export const bare: Contender = {
  id: 'bare',
  label: 'bare HttpClient',
  refreshes: false,
  providers: () => [provideHttpClient()],
  login: () => undefined,
};
