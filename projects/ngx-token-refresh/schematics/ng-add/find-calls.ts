import type * as TS from 'typescript';

import { ts } from './ts';

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
