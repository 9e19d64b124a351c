import type * as TS from 'typescript';
import { ts } from './typescript';

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

/** Every call under `root` (itself included) whose callee is the identifier `name`. */
export function findCalls(root: TS.Node, name: string | undefined): TS.CallExpression[] {
  const calls: TS.CallExpression[] = [];
  if (!name) return calls;
  const visit = (node: TS.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === name) {
      calls.push(node);
    }
    node.forEachChild(visit);
  };
  visit(root);
  return calls;
}

/** Whether `node` is a call of the identifier `name`. */
export function isCallOf(node: TS.Node, name: string | undefined): node is TS.CallExpression {
  return !!name && ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === name;
}

/** The `providers: [...]` property of an application config, if it has one. */
export function findProvidersProperty(config: TS.ObjectLiteralExpression): TS.ObjectLiteralElementLike | undefined {
  return config.properties.find(
    (property) =>
      !!property.name &&
      (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name)) &&
      property.name.text === 'providers',
  );
}

/** The whitespace at the start of the line holding `position`. */
export function indentAt(source: TS.SourceFile, position: number): string {
  const { line } = source.getLineAndCharacterOfPosition(position);
  const lineStart = source.getPositionOfLineAndCharacter(line, 0);
  return /^[ \t]*/.exec(source.text.slice(lineStart))?.[0] ?? '';
}

function lineOf(source: TS.SourceFile, position: number): number {
  return source.getLineAndCharacterOfPosition(position).line;
}

/**
 * Whether a list is written one element per line: its first element starts on a later line than
 * its opening bracket or parenthesis.
 */
export function isMultiLine(source: TS.SourceFile, elements: TS.NodeArray<TS.Node>, openEnd: number): boolean {
  return elements.length > 0 && lineOf(source, elements[0].getStart(source)) > lineOf(source, openEnd);
}

/** An insertion: `text` at `position` of the file's original text. */
export interface Insertion {
  readonly position: number;
  readonly text: string;
}

/**
 * Appends `text` as the last element of a list (array elements, call arguments) in the list's own
 * style: on a line of its own in a multi-line list, after `, ` in a one-line list, keeping a
 * trailing comma where there was one. `openEnd` is the position just after `[` or `(`.
 */
export function appendToList(
  source: TS.SourceFile,
  elements: TS.NodeArray<TS.Node>,
  openEnd: number,
  text: string,
): Insertion {
  if (elements.length === 0) return { position: openEnd, text };
  const last = elements[elements.length - 1];
  const multiLine = isMultiLine(source, elements, openEnd);
  const indent = indentAt(source, last.getStart(source));
  if (elements.hasTrailingComma) {
    const comma = source.text.indexOf(',', last.getEnd());
    return { position: comma + 1, text: multiLine ? `\n${indent}${text},` : ` ${text},` };
  }
  return { position: last.getEnd(), text: multiLine ? `,\n${indent}${text}` : `, ${text}` };
}
