import type * as TS from 'typescript';

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
