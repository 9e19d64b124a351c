import { assertBffSession } from './assert-bff-session';
import { BffError } from './bff-error';
import type { BffSession } from './bff-session';
import type { BffSessionChange } from './bff-session-store';

/**
 * Throws `InvalidSession` unless `outcome`, what a `change` function returned for `key` when the stored
 * record was `current`, is a write the store may make. A save must be the next version of the same
 * session: the version is what tells a request that someone else refreshed while it waited, so a save
 * that skips or repeats one would make another request refresh again with a rotated token.
 */
export function assertSessionChange<T>(
  outcome: unknown,
  key: string,
  current: BffSession | null,
): asserts outcome is BffSessionChange<T> {
  if (typeof outcome !== 'object' || outcome === null || !('result' in outcome)) {
    refuse('returned something other than { result, save?, delete? }');
  }
  const { save, delete: remove } = outcome as BffSessionChange<T>;
  if (remove !== undefined && remove !== true) refuse('returned a delete other than true');
  if (save === undefined) return;
  if (remove) refuse('returned both save and delete');
  assertBffSession(save, 'store.change');
  if (current === null) refuse('saved a session that is not there (store.create makes new ones)');
  if (save.key !== key) refuse('saved a record of another key');
  if (save.version !== current.version + 1) {
    refuse(`saved version ${save.version} over version ${current.version} (save the next one: ${current.version + 1})`);
  }
}

function refuse(problem: string): never {
  throw new BffError('InvalidSession', `the function given to store.change ${problem}`);
}
