import { HTTP, LIBRARY } from './module-names';
import type { SymbolRef } from './symbol-ref';

/** `withInterceptors([tokenRefreshInterceptor])`. */
export function interceptorsFeatureCode(ref: SymbolRef): string {
  return `${ref('withInterceptors', HTTP)}([${ref('tokenRefreshInterceptor', LIBRARY)}])`;
}
