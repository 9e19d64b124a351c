import { type EnvironmentProviders, type Provider, provideZonelessChangeDetection } from '@angular/core';

/** What every variant's application has besides its token handling. */
export const baseProviders: (Provider | EnvironmentProviders)[] = [provideZonelessChangeDetection()];
