import type * as TS from 'typescript';

import { findCalls } from './find-calls';
import { importedNames } from './imported-names';
import { indentAt } from './indent-at';
import { isCallOf } from './is-call-of';
import { isMultiLine } from './is-multi-line';
import type { LocatedConfig } from './locate-config';
import { HTTP, LIBRARY, LIBRARY_CLIENT, ROUTER } from './module-names';
import { ts } from './ts';

/** What the config already holds. */
export interface ConfigFacts {
  /** Import names of the config's file: module → symbol → local name. */
  readonly names: Map<string, Map<string, string>>;
  /** `provideAuth` or `provideTokenRefresh` when the file already calls it. */
  readonly registeredBy: string | null;
  /** The app's `provideHttpClient(...)` among its providers. */
  readonly httpClient: TS.CallExpression | null;
  /** Whether `tokenRefreshInterceptor` is in a `withInterceptors([...])` of that `provideHttpClient`. */
  readonly interceptorListed: boolean;
  /** Whether the providers include `provideRouter(...)`. */
  readonly withRouter: boolean;
  /** The indentation of the providers, for code over several lines. */
  readonly indent: string;
}

/**
 * Reads what a located application config already holds, by the names its file imports (so aliases
 * count): whether the library is set up, the app's `provideHttpClient` and its interceptors, the
 * router, and the indentation to write in. Only reads; changes nothing.
 */
export function inspectConfig({ source, providers }: LocatedConfig): ConfigFacts {
  const names = importedNames(source);
  const local = (symbol: string, module: string) => names.get(module)?.get(symbol);
  const registeredBy =
    (
      [
        ['provideAuth', LIBRARY_CLIENT],
        ['provideTokenRefresh', LIBRARY],
      ] as const
    ).find(([symbol, module]) => findCalls(source, local(symbol, module)).length > 0)?.[0] ?? null;
  const httpClient = providers ? (findCalls(providers, local('provideHttpClient', HTTP))[0] ?? null) : null;
  const interceptor = local('tokenRefreshInterceptor', LIBRARY);
  const interceptorListed =
    !!httpClient &&
    !!interceptor &&
    httpClient.arguments.some(
      (feature) =>
        isCallOf(feature, local('withInterceptors', HTTP)) &&
        feature.arguments.some(
          (list) =>
            ts.isArrayLiteralExpression(list) &&
            list.elements.some((element) => ts.isIdentifier(element) && element.text === interceptor),
        ),
    );
  const withRouter = !!providers && findCalls(providers, local('provideRouter', ROUTER)).length > 0;
  let indent = '    ';
  if (providers && isMultiLine(source, providers.elements, providers.elements.pos)) {
    indent = indentAt(source, providers.elements[0].getStart(source));
  } else if (providers) {
    indent = `${indentAt(source, providers.getStart(source))}  `;
  }
  return { names, registeredBy, httpClient, interceptorListed, withRouter, indent };
}
