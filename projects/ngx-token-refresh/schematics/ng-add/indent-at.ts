import type * as TS from 'typescript';

/** The whitespace at the start of the line holding `position`. */
export function indentAt(source: TS.SourceFile, position: number): string {
  const { line } = source.getLineAndCharacterOfPosition(position);
  const lineStart = source.getPositionOfLineAndCharacter(line, 0);
  return /^[ \t]*/.exec(source.text.slice(lineStart))?.[0] ?? '';
}
