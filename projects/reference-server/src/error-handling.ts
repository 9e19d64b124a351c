import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { MAX_ERROR_DETAILS, invalidRequest } from '#contract';

import { DatabaseUnavailableError } from './database-unavailable-error.js';
import { type ErrorDetail, HttpError } from './http-error.js';
import { SECURITY_HEADERS } from './security-headers.js';

/** Methods a route can be asked for; OPTIONS is CORS's and answered apart. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** Seconds a client should wait before trying again after a 503. */
const RETRY_AFTER_SECONDS = 2;
/** `/api/v<anything>/users...` with another version than 1. */
const OTHER_VERSION = /^\/api\/(v[^/]*)\/users(?:\/[^/]*)?\/?$/;

/**
 * Makes every error the uniform body `{ error: { code, message, details? } }`: errors thrown by
 * handlers and hooks, Fastify's own (validation, bad JSON, too large, unsupported media type),
 * unknown routes (404), known routes asked with another method (405 with `Allow`), and a database
 * that did not answer in time (503 with `Retry-After`). Unexpected errors are logged with their
 * stack and answered with a 500 that says nothing about them.
 *
 * @example
 * registerErrorHandling(app);
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request, reply) => {
    const answer = toHttpError(error);
    if (error instanceof DatabaseUnavailableError) request.log.warn({ err: error }, 'database unavailable');
    else if (answer.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(reply, answer);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
    if (allowed.length > 0 && !allowed.includes(request.method as (typeof METHODS)[number])) {
      return sendError(
        reply,
        new HttpError(405, 'MethodNotAllowed', `${request.method} is not allowed here; use ${allowed.join(', ')}.`, {
          headers: { Allow: allowed.join(', ') },
        }),
      );
    }
    const version = OTHER_VERSION.exec(path)?.[1];
    if (version !== undefined && version !== 'v1') {
      return sendError(
        reply,
        new HttpError(404, 'NotFound', `Version ${version} of the users API does not exist; use /api/v1/users.`),
      );
    }
    return sendError(reply, new HttpError(404, 'NotFound', `There is nothing at ${truncate(path)}.`));
  });
}

/**
 * Fastify's `frameworkErrors` option: a URL the router cannot decode (`%` not followed by hex) or a
 * path parameter longer than the router allows, as uniform errors with the security headers (no
 * hook runs for these).
 */
export function handleFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  reply.headers(SECURITY_HEADERS);
  const answer =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new HttpError(414, 'UriTooLong', 'The URL is too long.')
      : error.code === 'FST_ERR_BAD_URL'
        ? new HttpError(400, 'InvalidRequest', 'The URL is not valid (bad percent-encoding).')
        : new HttpError(500, 'ServerError', 'Something went wrong on the server.');
  void sendError(reply, answer);
}

/**
 * Fastify's `clientErrorHandler` option: requests Node's HTTP parser refuses before Fastify sees
 * them (headers too large, malformed request lines, headers or body too slow to arrive) still get
 * the uniform body and the security headers, then the connection closes, as Node would do.
 */
export function handleClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new HttpError(431, 'HeadersTooLarge', 'The request headers are too large.')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new HttpError(408, 'Timeout', 'The request took too long to arrive.')
        : new HttpError(400, 'BadRequest', 'The request is not valid HTTP.');
  sendOnSocket(socket, answer);
}

/**
 * Writes `error` as a whole HTTP/1.1 answer (uniform body, security headers, `Connection: close`)
 * straight onto a socket no request object exists for, then closes it.
 */
export function sendOnSocket(socket: Socket, error: HttpError): void {
  const body = JSON.stringify(error.toBody());
  const headers = {
    ...SECURITY_HEADERS,
    ...error.headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  // As Node's own handler: never into the middle of an answer already being sent on this connection
  // (a pipelined request that fails to parse while the one before it is answered).
  const answering = (socket as Socket & { _httpMessage?: { _headerSent?: boolean } })._httpMessage?._headerSent;
  if (socket.writable && !answering) {
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n${lines.join('')}\r\n${body}`);
  }
  socket.destroy();
}

/** Sends an {@link HttpError} with the uniform body. */
export function sendError(reply: FastifyReply, error: HttpError): FastifyReply {
  return reply.code(error.status).headers(error.headers).type('application/json; charset=utf-8').send(error.toBody());
}

/** What any thrown value becomes on the wire. Only messages of this server's own making are sent. */
function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof DatabaseUnavailableError) {
    return new HttpError(503, 'ServiceUnavailable', 'The database is not answering; please try again shortly.', {
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    });
  }
  const fastifyError = (typeof error === 'object' && error !== null ? error : {}) as Partial<FastifyError>;
  if (Array.isArray(fastifyError.validation)) {
    // Only the details sent are translated: a flood of unknown keys costs no more than ten.
    const { validation } = fastifyError;
    const { message, details } = invalidRequest(
      validation.slice(0, MAX_ERROR_DETAILS).map(toDetail),
      validation.length,
    );
    return new HttpError(400, 'InvalidRequest', message, { details });
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new HttpError(400, 'InvalidRequest', 'The body is not valid JSON.', {
        details: [{ target: '', message: 'is not valid JSON' }],
      });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpError(413, 'PayloadTooLarge', 'The request body is too large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HttpError(415, 'UnsupportedMediaType', 'Send JSON (Content-Type: application/json).');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new HttpError(400, 'InvalidRequest', 'The Content-Length does not match the body.');
  }
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new HttpError(status, 'InvalidRequest', 'The request is not valid.');
  }
  return new HttpError(500, 'ServerError', 'Something went wrong on the server.');
}

interface ValidationError {
  readonly keyword: string;
  readonly instancePath: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** An Ajv error as a detail: the field it concerns and a sentence a form can show next to it. */
function toDetail({ keyword, instancePath, params }: ValidationError): ErrorDetail {
  const target = instancePath.replace(/^\//, '').replace(/\//g, '.');
  switch (keyword) {
    case 'required':
      return { target: String(params['missingProperty']), message: 'is required' };
    case 'additionalProperties':
      return { target: String(params['additionalProperty']).slice(0, 100), message: 'is not a known field' };
    case 'type': {
      const expected = String(params['type']).split(',')[0] ?? '';
      if (target === '') return { target, message: 'The body must be a JSON object.' };
      return { target, message: `must be ${/^[aeiou]/.test(expected) ? 'an' : 'a'} ${expected}` };
    }
    case 'maxLength':
      return { target, message: `must be at most ${String(params['limit'])} characters long` };
    default:
      return { target, message: 'is not valid' };
  }
}

function truncate(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}
