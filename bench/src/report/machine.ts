import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';

import { libraryVersion } from '../harness/library';
import type { Machine } from './results';

const ROOT = new URL('../../../', import.meta.url);

/** The machine, without its name or any path. */
export function describeMachine(): Machine {
  const release = existsSync('/etc/os-release') ? readFileSync('/etc/os-release', 'utf8') : '';
  const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(release)?.[1];
  return {
    os: `${pretty ?? `${os.type()} ${os.release()}`} (${os.arch()})`,
    cpu: (os.cpus()[0]?.model ?? 'unknown').replace(/\s+/g, ' ').trim(),
    cores: os.availableParallelism(),
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    v8: process.versions.v8,
  };
}

const PACKAGES = [
  '@angular/core',
  '@angular/common',
  '@angular/build',
  'rxjs',
  '@auth0/angular-jwt',
  'ngx-auth',
  'angular-oauth2-oidc',
  'oauth4webapi',
  'dpop',
];

/** Versions of everything measured, and the commit of the workspace. */
export function describeVersions(): Record<string, string> {
  const versions: Record<string, string> = { 'ngx-token-refresh': `${libraryVersion()} (${commit()})` };
  for (const name of PACKAGES) {
    const manifest = JSON.parse(readFileSync(new URL(`node_modules/${name}/package.json`, ROOT), 'utf8')) as {
      version: string;
    };
    versions[name] = manifest.version;
  }
  return versions;
}

function commit(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    // Specs are not part of the package: a spec being written beside the run does not change what is measured.
    const changed =
      git('status', '--porcelain', '--', 'projects/ngx-token-refresh', ':(exclude,glob)**/*.spec*.ts') !== '';
    return `commit ${git('rev-parse', '--short', 'HEAD')}${changed ? ' with local changes to the library' : ''}`;
  } catch {
    return 'commit unknown';
  }
}
