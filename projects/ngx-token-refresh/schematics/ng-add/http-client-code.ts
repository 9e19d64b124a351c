import { interceptorsFeatureCode } from './interceptors-feature-code';
import { HTTP } from './module-names';
import type { SymbolRef } from './symbol-ref';

/** `provideHttpClient(withInterceptors([tokenRefreshInterceptor]))`, with `withFetch()` first when asked. */
export function httpClientCode(ref: SymbolRef, fetch = false): string {
  // In this order: the imports are written in the order the symbols are named.
  const provide = ref('provideHttpClient', HTTP);
  const withFetch = fetch ? `${ref('withFetch', HTTP)}(), ` : '';
  return `${provide}(${withFetch}${interceptorsFeatureCode(ref)})`;
}
