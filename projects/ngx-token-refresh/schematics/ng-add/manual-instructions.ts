import { httpClientCode } from './http-client-code';
import { CORE, HTTP, LIBRARY, LIBRARY_CLIENT, LIBRARY_ROUTER } from './module-names';
import { providerCode } from './provider-code';
import type { Setup } from './resolve-setup';
import type { SymbolRef } from './symbol-ref';

/** The providers to add by hand, for the messages of a refusal. */
export function manualInstructions(setup: Setup): string {
  const plain: SymbolRef = (symbol) => symbol;
  const auth = setup.kind === 'auth';
  const imports = [
    `provideHttpClient, withInterceptors${auth ? '' : ', HttpClient'} from '${HTTP}'`,
    ...(auth ? [] : [`inject from '${CORE}'`]),
    `tokenRefreshInterceptor${auth ? ', withCrossTabSync' : ', provideTokenRefresh'} from '${LIBRARY}'`,
    ...(auth ? [`provideAuth from '${LIBRARY_CLIENT}'`, `navigateToLogin from '${LIBRARY_ROUTER}'`] : []),
  ];
  return (
    `Add these to the application's providers by hand (see the README of ngx-token-refresh, "Set up"):\n` +
    `  ${httpClientCode(plain)},\n` +
    `  ${providerCode(setup, plain, auth, '  ')},\n` +
    `importing ${imports.slice(0, -1).join('; ')} and ${imports.at(-1)}. Keep interceptors that rewrite URLs ` +
    `before tokenRefreshInterceptor, and logging or timing interceptors after it.`
  );
}
