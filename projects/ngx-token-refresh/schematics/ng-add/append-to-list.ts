import type * as TS from 'typescript';

import { indentAt } from './indent-at';
import { isMultiLine } from './is-multi-line';

/** An insertion: `text` at `position` of the file's original text (what {@link appendToList} returns). */
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
