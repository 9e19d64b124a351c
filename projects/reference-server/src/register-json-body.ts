import type { FastifyInstance } from 'fastify';

import { HttpError } from './http-error.js';

/** The media types whose bodies the server reads; anything else is a 415. */
export const JSON_MEDIA_TYPES = ['application/json', 'application/merge-patch+json'] as const;

/**
 * Replaces Fastify's body parsers with one for JSON (`application/json` and JSON Merge Patch) that
 * is strict where the default is lenient: bytes that are not UTF-8 are a 400 (the default would turn
 * them into U+FFFD and store them), and an empty body is no body (a client calling
 * `POST /auth/refresh` with `Content-Type: application/json` and nothing else). Prototype
 * poisoning (`__proto__`, `constructor.prototype`) is refused by Fastify's secure parser. Every
 * other media type, `text/plain` included, is refused with 415, which also stops form posts from
 * other sites.
 *
 * @example
 * registerJsonBody(app);
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser([...JSON_MEDIA_TYPES], { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      done(
        new HttpError(400, 'InvalidRequest', 'The body is not valid UTF-8.', {
          details: [{ target: '', message: 'is not valid UTF-8' }],
        }),
        undefined,
      );
      return;
    }
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, text, done);
  });
}
