import type * as TS from 'typescript';

import { ts } from './ts';

/** The `providers: [...]` property of an application config, if it has one. */
export function findProvidersProperty(config: TS.ObjectLiteralExpression): TS.ObjectLiteralElementLike | undefined {
  return config.properties.find(
    (property) =>
      !!property.name &&
      (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name)) &&
      property.name.text === 'providers',
  );
}
