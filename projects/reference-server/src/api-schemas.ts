import { MAX_EMAIL_LENGTH, MAX_NAME_LENGTH, MAX_PAGE_SIZE } from '#contract';

/**
 * The JSON schemas of what the server answers, shared by the routes (`$ref: 'User#'`): Fastify
 * serialises each answer with them (fast-json-stringify, which also leaves out any property they do
 * not name), and the OpenAPI document lists them under `components.schemas` by their `$id`.
 *
 * @example
 * for (const schema of API_SCHEMAS) app.addSchema(schema);
 */
export const API_SCHEMAS = [
  {
    $id: 'ErrorDetail',
    type: 'object',
    description: 'One problem with one part of the request.',
    additionalProperties: false,
    required: ['target', 'message'],
    properties: {
      target: {
        type: 'string',
        description: "The field concerned (`email`, `pageSize`, `id`), or '' for the whole request.",
      },
      message: { type: 'string', description: 'What is wrong with it, e.g. `is already taken`.' },
    },
  },
  {
    $id: 'ErrorBody',
    type: 'object',
    description: 'The uniform error body of every answer with a status of 400 or above.',
    additionalProperties: false,
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        additionalProperties: false,
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', description: 'Stable, machine-readable, e.g. `InvalidRequest`, `TokenExpired`.' },
          message: { type: 'string', description: 'A sentence for people.' },
          details: { type: 'array', minItems: 1, items: { $ref: 'ErrorDetail#' } },
        },
      },
    },
  },
  {
    $id: 'User',
    type: 'object',
    additionalProperties: false,
    required: ['id', 'name', 'email'],
    properties: {
      id: { type: 'integer', minimum: 1 },
      name: { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH },
      email: { type: 'string', minLength: 3, maxLength: MAX_EMAIL_LENGTH },
    },
  },
  {
    $id: 'UserPage',
    type: 'object',
    description: 'One page of users: the answer of a list call that gives `page` or `pageSize`.',
    additionalProperties: false,
    required: ['data', 'pagination'],
    properties: {
      data: { type: 'array', items: { $ref: 'User#' } },
      pagination: {
        type: 'object',
        additionalProperties: false,
        required: ['currentPage', 'pageSize', 'totalPages', 'totalItems'],
        properties: {
          currentPage: { type: 'integer', minimum: 1 },
          pageSize: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE },
          totalPages: { type: 'integer', minimum: 0 },
          totalItems: { type: 'integer', minimum: 0 },
        },
      },
    },
  },
  {
    $id: 'AccessToken',
    type: 'object',
    description:
      'A new access token (a JWT, HS256). `refreshToken` only in the body flow: login with ' +
      'REFRESH_TOKEN_IN_BODY=true, or a refresh that sent `{ refreshToken }`.',
    additionalProperties: false,
    required: ['accessToken'],
    properties: { accessToken: { type: 'string' }, refreshToken: { type: 'string' } },
  },
] as const;

const ERROR_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'Invalid request (`InvalidRequest`), with a detail per problem.',
  401: 'No, a malformed, an invalid or an expired token or credentials.',
  403: 'Signed in, but not allowed (`Forbidden`).',
  404: 'Not found (`NotFound`).',
  406: 'The `Accept` header names no version this server has (`NotAcceptable`).',
  409: 'Conflict (`Conflict`), e.g. a taken e-mail address.',
  413: 'The body is larger than BODY_LIMIT_BYTES (`PayloadTooLarge`).',
  414: 'The URL is too long (`UriTooLong`).',
  415: 'The body is not of the media type this operation reads (`UnsupportedMediaType`).',
  429:
    'Too many attempts (from this address, for this session, or, at sign-in, for this account), or open ' +
    'connections from this address (`TooManyRequests`, with `Retry-After` for attempts).',
  500: 'The server failed (`ServerError`); the body says nothing about why.',
  503: 'The database did not answer in time (`ServiceUnavailable`, with `Retry-After`); try again.',
};

/**
 * Answers any operation may give, whatever it does: the cap on open connections per address (429)
 * and a database that does not answer in time (503), next to a failure of the server (500).
 */
export const ANY_OPERATION_ERRORS = [429, 500, 503] as const;

/**
 * The `response` entries of these error statuses, each with the uniform error body, for a route's
 * schema. `401` also names the `WWW-Authenticate` header it carries.
 *
 * @example
 * schema: { response: { 200: ..., ...errorResponses(400, 401, 500) } }
 */
export function errorResponses(...statuses: readonly number[]): Record<number, object> {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: ERROR_DESCRIPTIONS[status] ?? 'An error.',
        content: { 'application/json': { schema: { $ref: 'ErrorBody#' } } },
        ...(status === 401 || status === 403
          ? { headers: { 'WWW-Authenticate': { type: 'string', description: 'The RFC 6750 challenge.' } } }
          : {}),
      },
    ]),
  );
}
