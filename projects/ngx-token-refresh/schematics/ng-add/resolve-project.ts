import { type SchematicContext, SchematicsException, type Tree } from '@angular-devkit/schematics';
import { readWorkspace } from '@schematics/angular/utility';

import { refuse } from './refuse';
import type { Setup } from './resolve-setup';

/**
 * The application of angular.json to set up: the one asked for with `--project`, else the workspace's
 * default project when it is an application, else its first application (saying so when there are
 * several). Refuses a project that is not there, a library, and a workspace without an application.
 */
export async function resolveProject(
  tree: Tree,
  requested: string | undefined,
  setup: Setup,
  context: SchematicContext,
): Promise<string> {
  const workspace = await readWorkspace(tree);
  const isApplication = (name: string) => workspace.projects.get(name)?.extensions['projectType'] === 'application';
  if (requested) {
    if (!workspace.projects.has(requested)) {
      throw new SchematicsException(
        `ngx-token-refresh: there is no project '${requested}' in angular.json ` +
          `(projects: ${[...workspace.projects.keys()].join(', ') || 'none'}).`,
      );
    }
    if (!isApplication(requested)) {
      throw refuse(
        `'${requested}' is a library, and ng add ngx-token-refresh sets up an application (its app.config.ts). ` +
          `Run it with --project <application>; a library lists ngx-token-refresh in its peerDependencies instead.`,
        setup,
      );
    }
    return requested;
  }
  const applications = [...workspace.projects.keys()].filter(isApplication);
  const defaultProject = workspace.extensions['defaultProject'];
  if (typeof defaultProject === 'string' && applications.includes(defaultProject)) return defaultProject;
  if (applications.length === 0) {
    throw refuse(
      `the workspace has no application to set up (ng add sets up an application; a library lists ` +
        `ngx-token-refresh in its peerDependencies instead).`,
      setup,
    );
  }
  if (applications.length > 1) {
    context.logger.info(
      `Setting up '${applications[0]}', the first application of the workspace; ` +
        `choose another with --project (${applications.join(', ')}).`,
    );
  }
  return applications[0];
}
