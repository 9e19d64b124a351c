import { HttpError } from './http-error.js';

/**
 * Content negotiation of the `Accept`-versioned users API (`/api/users`): `null` when `Accept` names
 * `application/vnd.<vendor>.v1+json` (parameters and case aside, `q=0` meaning "not this"), else the
 * 406 to send, naming the versions asked for, or saying how to ask.
 *
 * @example
 * const refusal = negotiateVersion(request.headers.accept, 'showcase');
 * if (refusal) throw refusal;
 */
export function negotiateVersion(accept: string | string[] | undefined, vendor: string): HttpError | null {
  const wanted = `application/vnd.${vendor}.v1+json`;
  const ranges = (Array.isArray(accept) ? accept : [accept ?? ''])
    .flatMap((value) => value.split(','))
    .slice(0, 50)
    .map((range) => {
      const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
      const refused = parameters.some((parameter) => /^q=0(?:\.0{0,3})?$/.test(parameter));
      return { type, refused };
    })
    .filter(({ type, refused }) => type !== '' && !refused)
    .map(({ type }) => type);
  if (ranges.includes(wanted)) return null;
  const prefix = `application/vnd.${vendor}.v`;
  const versions = ranges
    .filter((type) => type.startsWith(prefix) && type.endsWith('+json'))
    .map((type) => type.slice(prefix.length, -'+json'.length))
    .filter((version) => /^\d{1,6}$/.test(version));
  const message =
    versions.length > 0
      ? `Version ${versions.join(', ')} of the users API does not exist; ask for ${wanted}.`
      : `Say which version of the users API you want: Accept: ${wanted} (or call /api/v1/users).`;
  return new HttpError(406, 'NotAcceptable', message);
}
