import type * as TS from 'typescript';

import { ts } from './ts';

/** Whether `node` is a call of the identifier `name`. */
export function isCallOf(node: TS.Node, name: string | undefined): node is TS.CallExpression {
  return !!name && ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === name;
}
