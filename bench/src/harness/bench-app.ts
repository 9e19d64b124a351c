import { HttpBackend, HttpClient } from '@angular/common/http';
import {
  DOCUMENT,
  type EnvironmentInjector,
  type EnvironmentProviders,
  type Provider,
  createEnvironmentInjector,
  createPlatformFactory,
  getPlatform,
  platformCore,
  provideZonelessChangeDetection,
  ɵINJECTOR_SCOPE as INJECTOR_SCOPE,
} from '@angular/core';

import type { Contender } from '../contenders/contender';
import { FakeBackend } from './fake-backend';

/** What `DOCUMENT` holds in the bench: the page of an app served from https://app.example/. */
export const DOCUMENT_STUB = {
  baseURI: 'https://app.example/',
  location: {
    href: 'https://app.example/',
    origin: 'https://app.example',
    protocol: 'https:',
    host: 'app.example',
    hostname: 'app.example',
    port: '',
  },
};

/** One application using one contender, on the fake backend. */
export interface BenchApp<B extends BenchBackend = FakeBackend> {
  readonly http: HttpClient;
  readonly injector: EnvironmentInjector;
  readonly backend: B;
  destroy(): void;
}

/** A backend that also plays the server: it issues the tokens. */
export interface BenchBackend extends HttpBackend {
  /** Issues a token (a login) and returns it. */
  issueToken(): string;
}

const platform = () => getPlatform() ?? createPlatformFactory(platformCore, 'bench', [])();

/**
 * Creates an application's root injector as `bootstrapApplication` would (root scope, zoneless
 * change detection, the app's providers), with `HttpBackend` replaced by the fake backend, and
 * signs in with a fresh token.
 */
export function createBenchApp(contender: Contender): BenchApp;
export function createBenchApp<B extends BenchBackend>(contender: Contender, backend: B): BenchApp<B>;
export function createBenchApp(
  contender: Contender,
  backend: BenchBackend = new FakeBackend(),
): BenchApp<BenchBackend> {
  const providers: (Provider | EnvironmentProviders)[] = [
    { provide: INJECTOR_SCOPE, useValue: 'root' },
    provideZonelessChangeDetection(),
    { provide: DOCUMENT, useValue: DOCUMENT_STUB },
    ...contender.providers(),
    // After provideHttpClient, as provideHttpClientTesting does: the last HttpBackend wins.
    { provide: HttpBackend, useValue: backend },
  ];
  // The platform injector is an environment injector (an R3Injector), typed as a plain Injector.
  const injector = createEnvironmentInjector(providers, platform().injector as EnvironmentInjector, contender.id);
  contender.login(injector, backend.issueToken());
  return { http: injector.get(HttpClient), injector, backend, destroy: () => injector.destroy() };
}
