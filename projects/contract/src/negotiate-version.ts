/** What {@link negotiateVersion} decides: version 1 was asked for, or the 406's message. */
export type VersionNegotiation = { readonly ok: true } | { readonly ok: false; readonly message: string };

/** At most this many media ranges of `Accept` are read; a legitimate header has a handful. */
const MAX_MEDIA_RANGES = 50;

/**
 * Content negotiation of the `Accept`-versioned users API (`/api/users`): `ok` when one of the
 * `Accept` values names `application/vnd.<vendor>.v1+json`, case and parameters aside, unless its
 * `q` is 0, which means "not this" (RFC 9110 §12.4.2). Otherwise the message of the 406 to send:
 * the versions asked for, or how to ask.
 *
 * @example
 * negotiateVersion(['application/vnd.showcase.v1+json'], 'showcase'); // { ok: true }
 * negotiateVersion(['application/vnd.showcase.v2+json'], 'showcase').ok; // false: version 2 does not exist
 */
export function negotiateVersion(accept: readonly string[], vendor: string): VersionNegotiation {
  const wanted = `application/vnd.${vendor}.v1+json`;
  const ranges = accept
    .flatMap((value) => value.split(','))
    .slice(0, MAX_MEDIA_RANGES)
    .map((range) => {
      const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
      const refused = parameters.some((parameter) => /^q=0(?:\.0{0,3})?$/.test(parameter));
      return { type, refused };
    })
    .filter(({ type, refused }) => type !== '' && !refused)
    .map(({ type }) => type);
  if (ranges.includes(wanted)) return { ok: true };
  const prefix = `application/vnd.${vendor}.v`;
  const versions = ranges
    .filter((type) => type.startsWith(prefix) && type.endsWith('+json'))
    .map((type) => type.slice(prefix.length, -'+json'.length))
    .filter((version) => /^\d{1,6}$/.test(version));
  const message =
    versions.length > 0
      ? `Version ${versions.join(', ')} of the users API does not exist; ask for ${wanted}.`
      : `Say which version of the users API you want: Accept: ${wanted} (or call /api/v1/users).`;
  return { ok: false, message };
}
