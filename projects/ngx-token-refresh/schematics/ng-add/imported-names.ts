import type * as TS from 'typescript';

import { ts } from './ts';

/**
 * The local names of the named imports of a file: module → imported name → local name
 * (`import { provideHttpClient as http } from '@angular/common/http'` gives `http`).
 */
export function importedNames(source: TS.SourceFile): Map<string, Map<string, string>> {
  const names = new Map<string, Map<string, string>>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    const module = statement.moduleSpecifier.text;
    const ofModule = names.get(module) ?? new Map<string, string>();
    names.set(module, ofModule);
    for (const element of bindings.elements) {
      ofModule.set((element.propertyName ?? element.name).text, element.name.text);
    }
  }
  return names;
}
