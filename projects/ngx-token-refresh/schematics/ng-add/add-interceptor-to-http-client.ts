import type { Rule } from '@angular-devkit/schematics';
import { hasTopLevelIdentifier, insertImport } from '@schematics/angular/utility/ast-utils';
import { applyToUpdateRecorder, type Change, InsertChange } from '@schematics/angular/utility/change';
import type * as TS from 'typescript';

import { appendToList } from './append-to-list';
import { inspectConfig } from './inspect-config';
import { interceptorsFeatureCode } from './interceptors-feature-code';
import { isCallOf } from './is-call-of';
import { locateConfig } from './locate-config';
import { HTTP, LIBRARY } from './module-names';
import type { Setup } from './resolve-setup';
import { showPath } from './show-path';
import type { SymbolRef } from './symbol-ref';
import { ts } from './ts';

/**
 * Adds `tokenRefreshInterceptor` to the app's own `provideHttpClient(...)`: last in its (last)
 * `withInterceptors([...])`, or in a `withInterceptors([...])` added after its other features.
 * Leaves a `withInterceptors(...)` that takes no array literal alone, with a warning that says what to add.
 */
export function addInterceptorToHttpClient(mainPath: string, setup: Setup): Rule {
  return (tree, context) => {
    const located = locateConfig(tree, mainPath, setup);
    const { httpClient, interceptorListed, names } = inspectConfig(located);
    if (!httpClient || interceptorListed) return;
    const { source, filePath } = located;
    const withInterceptors = names.get(HTTP)?.get('withInterceptors');
    const features = httpClient.arguments.filter((feature) => isCallOf(feature, withInterceptors));
    const lists = features.map((feature) => feature.arguments[0]);
    if (lists.some((list) => !list || !ts.isArrayLiteralExpression(list))) {
      context.logger.warn(
        `The withInterceptors(...) of provideHttpClient in ${showPath(filePath)} does not take an array literal, so ` +
          `tokenRefreshInterceptor was not added to it. Add it by hand: after interceptors that rewrite URLs, ` +
          `before logging or timing interceptors.`,
      );
      return;
    }
    const changes: Change[] = [];
    const ref: SymbolRef = (symbol, module) => {
      const existing = names.get(module)?.get(symbol);
      if (existing) return existing;
      const alias = hasTopLevelIdentifier(source, symbol, module) ? `${symbol}_alias` : undefined;
      changes.push(insertImport(source, filePath, symbol, module, false, alias));
      return alias ?? symbol;
    };
    const list = lists.at(-1) as TS.ArrayLiteralExpression | undefined;
    const insertion = list
      ? appendToList(source, list.elements, list.elements.pos, ref('tokenRefreshInterceptor', LIBRARY))
      : appendToList(source, httpClient.arguments, httpClient.arguments.pos, interceptorsFeatureCode(ref));
    changes.push(new InsertChange(filePath, insertion.position, insertion.text));
    const recorder = tree.beginUpdate(filePath);
    applyToUpdateRecorder(recorder, changes);
    tree.commitUpdate(recorder);

    const others = features.some((feature) => (feature.arguments[0] as TS.ArrayLiteralExpression).elements.length > 0);
    const fromDi = httpClient.arguments.some((feature) =>
      isCallOf(feature, names.get(HTTP)?.get('withInterceptorsFromDi')),
    );
    context.logger.info(
      `Added tokenRefreshInterceptor to provideHttpClient in ${showPath(filePath)}` +
        (list ? ', at the end of withInterceptors([...]).' : '.'),
    );
    if (others || fromDi) {
      context.logger.info(
        'Interceptor order: keep interceptors that rewrite URLs before tokenRefreshInterceptor, and logging or ' +
          'timing interceptors after it, so that they see every repeated request.',
      );
    }
  };
}
