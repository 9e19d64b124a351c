import type { Rule } from '@angular-devkit/schematics';

import { importedNames } from './imported-names';
import { indentAt } from './indent-at';
import { isCallOf } from './is-call-of';
import { isMultiLine } from './is-multi-line';
import { locateConfig } from './locate-config';
import type { Setup } from './resolve-setup';

/**
 * `addRootProvider` appends `, provider` on the line of the previous provider; in a list written one
 * provider per line, this puts the providers just added on lines of their own.
 *
 * @param added the providers just added, as `[symbol, module]` pairs (found by the name the file imports them as).
 */
export function putOnOwnLines(mainPath: string, setup: Setup, added: readonly [string, string][]): Rule {
  return (tree) => {
    const { source, providers, filePath } = locateConfig(tree, mainPath, setup);
    if (!providers || !isMultiLine(source, providers.elements, providers.elements.pos)) return;
    const names = importedNames(source);
    const locals = added.map(([symbol, module]) => names.get(module)?.get(symbol));
    const indent = indentAt(source, providers.elements[0].getStart(source));
    const recorder = tree.beginUpdate(filePath);
    providers.elements.forEach((element, index) => {
      if (index === 0 || !locals.some((local) => isCallOf(element, local))) return;
      const previousEnd = providers.elements[index - 1].getEnd();
      const between = source.text.slice(previousEnd, element.getStart(source));
      if (!/^\s*,[ \t]*$/.test(between)) return;
      recorder.remove(previousEnd, between.length);
      recorder.insertLeft(previousEnd, `,\n${indent}`);
    });
    tree.commitUpdate(recorder);
  };
}
