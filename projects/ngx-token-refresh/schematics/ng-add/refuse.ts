import { SchematicsException } from '@angular-devkit/schematics';

import { manualInstructions } from './manual-instructions';
import type { Setup } from './resolve-setup';

/**
 * The error with which ng add stops when it cannot find or safely edit the application config: the
 * reason, then the providers to add by hand, so that a refusal still leaves the user one step from done.
 *
 * @example throw refuse(`could not find the main file of 'app'.`, setup);
 */
export function refuse(reason: string, setup: Setup): SchematicsException {
  return new SchematicsException(`ngx-token-refresh: ${reason}\n${manualInstructions(setup)}`);
}
