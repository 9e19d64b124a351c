import { InjectionToken } from '@angular/core';
import type { Observable } from 'rxjs';

/**
 * The auth lab's "Expire access token now" against a real server: a call that makes the server
 * refuse the current access token from now on, or `null` (the default) where there is none. The
 * in-memory backend has its own switch (LAB_BACKEND); `npm run start:real` runs the reference server
 * with its development-only lab route (DEV_LAB_ROUTES=true), which backend-providers.real.ts calls.
 */
export const LAB_EXPIRE_ON_SERVER = new InjectionToken<(() => Observable<unknown>) | null>('LAB_EXPIRE_ON_SERVER', {
  providedIn: 'root',
  factory: () => null,
});
