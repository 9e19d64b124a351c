/** The most the BFF refreshes ahead of an expiry (`needsRefresh` of ngx-token-refresh/bff). */
const MAX_MARGIN_S = 30;

/**
 * Counts the expiries that the API's sightings show (`sightings`: for each account, the access tokens it
 * saw, each `{ firstSeen, iat, exp }`, times of first sight in ms and of the provider in s).
 *
 * An expiry is a token replaced once it was due: the BFF replaces a token a quarter of its lifetime
 * before it ends (at most 30 s), so a token is due from `exp - min(30, (exp - iat) / 4)`. The provider
 * writes `iat` rounded down to the second, so it is never later than the moment the BFF counts from,
 * and a token replaced on time is always counted. A token replaced before it was due is `premature`:
 * a grant that nothing needed (two grants for one expiry, say, the second one soon after the first).
 *
 * Answers `{ tokens, replacements, expiries, premature, meanLifeMs }`: `replacements` = `expiries` +
 * `premature`; `meanLifeMs` is how long a due token was in use, from its first call to its successor's
 * first call (the sign-in's tokens left out: the load started after them).
 */
export function countExpiries(sightings) {
  let tokens = 0;
  let expiries = 0;
  let premature = 0;
  let lifeMs = 0;
  let lives = 0;
  for (const seen of Object.values(sightings)) {
    const ordered = [...seen].sort((a, b) => a.firstSeen - b.firstSeen);
    tokens += ordered.length;
    for (let index = 1; index < ordered.length; index++) {
      const { iat, exp } = ordered[index - 1];
      const dueAt = (exp - Math.min(MAX_MARGIN_S, (exp - iat) / 4)) * 1000;
      if (ordered[index].firstSeen >= dueAt) {
        expiries += 1;
        // The sign-in's token came before the load did: its first sight says nothing of its life.
        if (index > 1) {
          lifeMs += ordered[index].firstSeen - ordered[index - 1].firstSeen;
          lives += 1;
        }
      } else {
        premature += 1;
      }
    }
  }
  return {
    tokens,
    replacements: expiries + premature,
    expiries,
    premature,
    meanLifeMs: lives ? lifeMs / lives : null,
  };
}
