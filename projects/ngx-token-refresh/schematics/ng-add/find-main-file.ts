import { SchematicsException, type Tree } from '@angular-devkit/schematics';
import { getMainFilePath } from '@schematics/angular/utility/standalone/util';

import { refuse } from './refuse';
import type { Setup } from './resolve-setup';
import { showPath } from './show-path';

/**
 * The path of the project's main file (`src/main.ts`), from its build target in angular.json.
 * Refuses a project without a build target, or whose main file is not there.
 */
export async function findMainFile(tree: Tree, project: string, setup: Setup): Promise<string> {
  let mainPath: string | undefined;
  try {
    mainPath = await getMainFilePath(tree, project);
  } catch (error) {
    if (!(error instanceof SchematicsException)) throw error;
    throw refuse(
      `project '${project}' has no build target in angular.json, so ng add cannot find its main file.`,
      setup,
    );
  }
  if (!mainPath || !tree.exists(mainPath)) {
    throw refuse(
      `could not find the main file of '${project}' (${mainPath ? showPath(mainPath) : 'its build target names none'}).`,
      setup,
    );
  }
  return mainPath;
}
