import type { Repository } from './repository.js';

/** The DPoP keys sessions are bound to, as the auth routes look them up; from {@link createRefreshFamilyKeys}. */
export interface RefreshFamilyKeys {
  /**
   * The thumbprint of the key the family is bound to, `null` when it is bound to none, `undefined`
   * when there is no such family (never was, or deleted after it ended).
   */
  find(familyId: string): Promise<string | null | undefined>;
  /** Remembers the key of a family just created (a login), so that its refreshes need no look-up. */
  remember(familyId: string, jkt: string | null): void;
}

/** How many families' keys are remembered: some 200 B each, so 10,000 hold 2 MB at most. */
const FAMILIES_KEPT = 10_000;

/**
 * The keys of refresh-token families, read from the repository once and then remembered, the most
 * recent {@link FAMILIES_KEPT} of them. Remembering is safe across instances sharing the database
 * because a family's key is set at its login and never changes; a family that has gone since is
 * only ever asked about for a token the server refuses anyway.
 *
 * @example
 * const familyKeys = createRefreshFamilyKeys(repository);
 * const jkt = await familyKeys.find(reference.familyId);
 */
export function createRefreshFamilyKeys(repository: Repository): RefreshFamilyKeys {
  const kept = new Map<string, string | null>();
  const remember = (familyId: string, jkt: string | null): void => {
    if (kept.size >= FAMILIES_KEPT) kept.delete(kept.keys().next().value as string);
    kept.set(familyId, jkt);
  };
  return {
    async find(familyId) {
      const known = kept.get(familyId);
      if (known !== undefined) return known;
      const family = await repository.findRefreshFamilyKey(familyId);
      if (family === null) return undefined;
      remember(familyId, family.jkt);
      return family.jkt;
    },
    remember,
  };
}
