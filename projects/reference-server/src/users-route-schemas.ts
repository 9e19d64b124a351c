import type { FastifySchema } from 'fastify';

import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '#contract';

import { ANY_OPERATION_ERRORS, errorResponses } from './api-schemas.js';
import type { OpenApiRouteConfig } from './register-openapi.js';
import { USER_BODY_SCHEMA, USER_PATCH_SCHEMA } from './user-body-schemas.js';

/** The media type of a PATCH body: documented here, required by the PATCH route's own check (415). */
export const MERGE_PATCH = 'application/merge-patch+json';

/** Documentation only: the list handler answers its own, more precise 400s for these. */
const PAGING_QUERY = {
  type: 'object',
  properties: {
    page: { type: 'integer', minimum: 1, description: 'The page, from 1; without it and pageSize, a plain array.' },
    pageSize: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      description: `Users per page (${DEFAULT_PAGE_SIZE} when only page is given).`,
    },
  },
} as const;
/** Documentation only: the routes' `checkId` answers its own 400 for a bad `{id}`. */
const ID_PARAMS = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'integer', minimum: 1, maximum: 999_999_999_999_999 } },
} as const;

/**
 * What one mount of the users API gives Fastify beside its handlers: the route `schema` of each
 * operation (OpenAPI tags, summary, security, request body, answers) and the documentation-only
 * `config` of the collection and item routes. See {@link usersRouteSchemas}.
 */
export interface UsersRouteSchemas {
  /** `config` of `GET {collection}`: the paging query string, for the document only. */
  readonly listConfig: { readonly openapi: OpenApiRouteConfig };
  /** `config` of the `{collection}/{id}` routes: the `{id}` path parameter, for the document only. */
  readonly itemConfig: { readonly openapi: OpenApiRouteConfig };
  readonly list: FastifySchema;
  readonly create: FastifySchema;
  readonly get: FastifySchema;
  readonly replace: FastifySchema;
  readonly patch: FastifySchema;
  readonly delete: FastifySchema;
}

/**
 * The route schemas of one mount of the users API. Each mount is a separate set of OpenAPI
 * operations, so its tag, operation ids, answer media type and (for the `Accept` mount) the 406
 * differ; the body schemas are the same for both. Fastify also serialises each answer with the
 * `response` schemas, so they are behaviour as well as documentation.
 *
 * @example
 * const schemas = usersRouteSchemas({ collectionPath, mediaType, negotiate });
 * app.get(collectionPath, { onRequest: read, config: schemas.listConfig, schema: schemas.list }, list);
 */
export function usersRouteSchemas(mount: {
  /** The collection's path, e.g. `/api/v1/users`; the `Location` of a created user is below it. */
  readonly collectionPath: string;
  /** The media type of the answers, parameters included (`application/json; charset=utf-8`). */
  readonly mediaType: string;
  /** Whether the version comes from `Accept` (and a 406 is possible) rather than from the path. */
  readonly negotiate: boolean;
}): UsersRouteSchemas {
  const { collectionPath, mediaType, negotiate } = mount;
  // OpenAPI keys content by the bare media type; parameters such as charset are not part of it.
  const mediaTypeName = mediaType.split(';')[0] ?? mediaType;
  const tag = negotiate ? 'users (Accept version)' : 'users (path version)';
  // Operation ids must be unique across the document, and each operation exists once per mount.
  const operation = (name: string, summary: string, response: Record<number, object>, errors: number[]) => ({
    tags: [tag],
    operationId: negotiate ? `${name}ByAccept` : name,
    summary,
    security: [{ bearerAuth: [] }],
    response: { ...response, ...errorResponses(...(negotiate ? [...errors, 406] : errors), ...ANY_OPERATION_ERRORS) },
  });
  const content = (schema: object) => ({ content: { [mediaTypeName]: { schema } } });
  const item204 = { 204: { description: 'Done; no body.', type: 'null' } };

  return {
    listConfig: { openapi: { querystring: PAGING_QUERY } },
    itemConfig: { openapi: { params: ID_PARAMS } },
    list: operation(
      'listUsers',
      'List the users',
      {
        200: {
          description: 'All users as an array; with `page` or `pageSize`, one page in the paging envelope.',
          ...content({ anyOf: [{ type: 'array', items: { $ref: 'User#' } }, { $ref: 'UserPage#' }] }),
        },
      },
      [400, 401],
    ),
    create: {
      ...operation(
        'createUser',
        'Create a user',
        {
          201: {
            description: 'Created.',
            headers: { Location: { type: 'string', description: `${collectionPath}/{id}` } },
            ...content({ $ref: 'User#' }),
          },
        },
        [400, 401, 403, 409, 413, 415],
      ),
      body: USER_BODY_SCHEMA,
    },
    get: operation(
      'getUser',
      'Read a user',
      { 200: { description: 'The user.', ...content({ $ref: 'User#' }) } },
      [400, 401, 404, 414],
    ),
    replace: {
      ...operation('replaceUser', 'Replace a user', item204, [400, 401, 403, 404, 409, 413, 414, 415]),
      body: USER_BODY_SCHEMA,
    },
    patch: {
      ...operation(
        'patchUser',
        'Change some fields of a user (JSON Merge Patch)',
        { 200: { description: 'The updated user.', ...content({ $ref: 'User#' }) } },
        [400, 401, 403, 404, 409, 413, 414, 415],
      ),
      consumes: [MERGE_PATCH],
      body: USER_PATCH_SCHEMA,
    },
    delete: operation('deleteUser', 'Delete a user', item204, [400, 401, 403, 404, 414]),
  };
}
