import { chain, noop, type Rule, type SchematicContext, type Tree } from '@angular-devkit/schematics';
import { addRootProvider } from '@schematics/angular/utility';

import { addInterceptorToHttpClient } from './add-interceptor-to-http-client';
import { findMainFile } from './find-main-file';
import { httpClientCode } from './http-client-code';
import { type ConfigFacts, inspectConfig } from './inspect-config';
import { locateConfig } from './locate-config';
import { logNextSteps } from './log-next-steps';
import { HTTP, LIBRARY, LIBRARY_CLIENT } from './module-names';
import { providerCode } from './provider-code';
import { putOnOwnLines } from './put-on-own-lines';
import { resolveProject } from './resolve-project';
import { resolveSetup } from './resolve-setup';
import type { NgAddOptions } from './schema';
import { shouldAddFetch } from './should-add-fetch';
import { showPath } from './show-path';
import type { SymbolRef } from './symbol-ref';

/**
 * `ng add ngx-token-refresh`: adds `provideHttpClient(withInterceptors([tokenRefreshInterceptor]))`
 * (or adds the interceptor, last, to the app's own `provideHttpClient`) and `provideAuth(...)` or
 * `provideTokenRefresh(...)` to the application config of a standalone app. Running it again changes
 * nothing; where it cannot find or safely edit the config it changes nothing and says what to add.
 */
export function ngAdd(options: NgAddOptions = {}): Rule {
  return async (tree: Tree, context: SchematicContext) => {
    const setup = resolveSetup(options);
    const project = await resolveProject(tree, options.project, setup, context);
    const mainPath = await findMainFile(tree, project, setup);
    const located = locateConfig(tree, mainPath, setup);
    const facts = inspectConfig(located);
    const file = showPath(located.filePath);

    if (facts.registeredBy) {
      context.logger.info(`ngx-token-refresh is already set up in ${file} (${facts.registeredBy}): nothing changed.`);
      if (!facts.interceptorListed) {
        context.logger.warn(
          `tokenRefreshInterceptor is not in withInterceptors([...]) of a provideHttpClient in ${file}: ` +
            `unless it is registered elsewhere, no request is refreshed.`,
        );
      }
      return noop();
    }

    const rules: Rule[] = [];
    const added: [string, string][] = [];
    if (!facts.httpClient) {
      const fetch = await shouldAddFetch(tree, project);
      rules.push(
        addRootProvider(project, ({ code, external }) => code`${httpClientCode(refTo(facts, external), fetch)}`),
      );
      added.push(['provideHttpClient', HTTP]);
    } else if (!facts.interceptorListed) {
      rules.push(addInterceptorToHttpClient(mainPath, setup));
    }
    rules.push(
      addRootProvider(
        project,
        ({ code, external }) => code`${providerCode(setup, refTo(facts, external), facts.withRouter, facts.indent)}`,
      ),
    );
    added.push(setup.kind === 'auth' ? ['provideAuth', LIBRARY_CLIENT] : ['provideTokenRefresh', LIBRARY]);
    rules.push(putOnOwnLines(mainPath, setup, added));
    rules.push(() => logNextSteps(context, setup, file, added, facts.withRouter));
    return chain(rules);
  };
}

/** Names a symbol by its existing import (aliases included), or has `addRootProvider` import it. */
function refTo(facts: ConfigFacts, external: (symbol: string, module: string) => string): SymbolRef {
  return (symbol, module) => facts.names.get(module)?.get(symbol) ?? external(symbol, module);
}
