import type { EnvironmentInjector, EnvironmentProviders, Provider } from '@angular/core';

/** Every contender, in the order of the tables. */
export const CONTENDER_IDS = [
  'bare',
  'attach-only',
  'attach-catch',
  'auth0-jwt',
  'behavior-subject',
  'ngx-auth',
  'ngx-token-refresh',
] as const;

export type ContenderId = (typeof CONTENDER_IDS)[number];

/** One way of handling the access token, wired into an application as its users would. */
export interface Contender {
  readonly id: ContenderId | 'ngx-token-refresh-showcase' | 'ngx-token-refresh-proactive';
  /** Name in the tables. */
  readonly label: string;
  /** Whether it refreshes the token on 401 (the others only attach it, or do nothing). */
  readonly refreshes: boolean;
  /** The application's providers, `provideHttpClient(...)` included. */
  providers(): (Provider | EnvironmentProviders)[];
  /** Signs the application in with `token`, the way its users would. */
  login(injector: EnvironmentInjector, token: string): void;
}
