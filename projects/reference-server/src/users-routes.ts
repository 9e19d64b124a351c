import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onRequestAsyncHookHandler,
  onRequestHookHandler,
} from 'fastify';

import { describeDetails, locatePage, parseWholeNumber, readPaging, validateUserFields } from '#contract';

import type { AccessTokens } from './access-tokens.js';
import { authenticate, requireAdmin } from './authenticate.js';
import type { DpopAuthenticate } from './authenticate-dpop.js';
import { DPOP_CHALLENGES } from './dpop-errors.js';
import { HttpError } from './http-error.js';
import { negotiateAcceptHeader } from './negotiate-accept-header.js';
import { EmailTakenError, type Repository, type User, type UserFields } from './repository.js';
import { MERGE_PATCH, usersRouteSchemas } from './users-route-schemas.js';

/** What the users routes need. */
export interface UsersRoutesOptions {
  readonly repository: Repository;
  readonly accessTokens: AccessTokens;
  /** Vendor of the `Accept` media type: `application/vnd.<vendor>.v1+json`. */
  readonly apiVendor: string;
  /** The check of DPoP and Bearer credentials when DPoP is on; `null` (DPOP=off): Bearer only, as always. */
  readonly dpopAuthenticate: DpopAuthenticate | null;
}

/**
 * The users API, version 1, mounted twice: `/api/v1/users` (version in the path) and `/api/users`
 * (version in `Accept: application/vnd.<vendor>.v1+json`, else 406). Checks run in this order:
 * method (405, by the not-found handler), version (406), access token (401), role for writes (403),
 * body (413, 415, 400), id (400), then the operation (404, 400 with a detail per field, 409).
 *
 * | op | method | success |
 * |---|---|---|
 * | list | GET /users | plain array; with `page`/`pageSize`, `{ data, pagination }` (page size 10 by default, at most 100) |
 * | get | GET /users/{id} | 200 user |
 * | create | POST /users | 201 user, `Location: {collection}/{id}` |
 * | replace | PUT /users/{id} | 204 |
 * | patch | PATCH /users/{id}, `application/merge-patch+json` | 200 updated user |
 * | delete | DELETE /users/{id} | 204 |
 */
export async function registerUsersRoutes(app: FastifyInstance, options: UsersRoutesOptions): Promise<void> {
  const { repository, accessTokens, apiVendor, dpopAuthenticate } = options;
  const mounts = [
    { collectionPath: '/api/v1/users', mediaType: 'application/json; charset=utf-8', negotiate: false },
    { collectionPath: '/api/users', mediaType: `application/vnd.${apiVendor}.v1+json`, negotiate: true },
  ] as const;

  for (const { collectionPath, mediaType, negotiate } of mounts) {
    // Hooks here are synchronous and callback-style: they run on every call, and Fastify turns a throw
    // into the error answer as it does a rejection, without a promise per hook and without the cost of
    // a promise rejected before its handler is attached (which the process tracks as possibly unhandled).
    // With DPoP on, the check is asynchronous (the proof's replay check asks the database).
    const read: (onRequestHookHandler | onRequestAsyncHookHandler)[] = [];
    if (negotiate) {
      read.push((request, _reply, done) => {
        const refusal = negotiateAcceptHeader(request.headers.accept, apiVendor);
        if (refusal) throw refusal;
        done();
      });
    }
    const write = [...read];
    if (dpopAuthenticate === null) {
      read.push((request, _reply, done) => {
        authenticate(request, accessTokens);
        done();
      });
      write.push((request, _reply, done) => {
        requireAdmin(authenticate(request, accessTokens));
        done();
      });
    } else {
      read.push(async (request: FastifyRequest, reply: FastifyReply) => {
        await dpopAuthenticate(request, reply);
      });
      write.push(async (request: FastifyRequest, reply: FastifyReply) => {
        const { claims, scheme } = await dpopAuthenticate(request, reply);
        requireAdmin(claims, scheme === 'DPoP' ? DPOP_CHALLENGES.insufficientScope : undefined);
      });
    }
    const item = `${collectionPath}/:id`;
    const send = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).type(mediaType).send(body);
    const schemas = usersRouteSchemas({ collectionPath, mediaType, negotiate });

    app.get(
      collectionPath,
      {
        onRequest: read,
        config: schemas.listConfig,
        schema: schemas.list,
      },
      async (request, reply) => send(reply, 200, await list(request, repository)),
    );

    app.post(
      collectionPath,
      {
        onRequest: write,
        preValidation: requireMediaType('application/json'),
        schema: schemas.create,
      },
      async (request, reply) => {
        const fields = checkFields(request.body, 'create') as UserFields;
        const user = await writeUser(() => repository.createUser(fields));
        reply.header('Location', `${collectionPath}/${user.id}`);
        return send(reply, 201, user);
      },
    );

    app.get(
      item,
      {
        onRequest: read,
        preValidation: checkId,
        config: schemas.itemConfig,
        schema: schemas.get,
      },
      async (request, reply) => send(reply, 200, await findUser(repository, readId(request))),
    );

    app.put(
      item,
      {
        onRequest: write,
        preValidation: [checkId, requireMediaType('application/json')],
        config: schemas.itemConfig,
        schema: schemas.replace,
      },
      async (request, reply) => {
        const id = readId(request);
        const fields = checkFields(request.body, 'replace', id);
        const user = await writeUser(() => repository.updateUser(id, fields));
        if (!user) throw notFound(id);
        return reply.code(204).send();
      },
    );

    app.patch(
      item,
      {
        onRequest: write,
        preValidation: [checkId, requireMediaType(MERGE_PATCH)],
        config: schemas.itemConfig,
        schema: schemas.patch,
      },
      async (request, reply) => {
        const id = readId(request);
        const fields = checkFields(request.body, 'patch', id);
        const user = await writeUser(() => repository.updateUser(id, fields));
        if (!user) throw notFound(id);
        return send(reply, 200, user);
      },
    );

    app.delete(
      item,
      {
        onRequest: write,
        preValidation: checkId,
        config: schemas.itemConfig,
        schema: schemas.delete,
      },
      async (request, reply) => {
        const id = readId(request);
        if (!(await repository.deleteUser(id))) throw notFound(id);
        return reply.code(204).send();
      },
    );
  }
}

async function list(request: FastifyRequest, repository: Repository): Promise<User[] | object> {
  const query = request.query as Record<string, string | string[] | undefined>;
  const paging = readPaging((name) => [query[name] ?? []].flat());
  if (!paging.ok) {
    throw new HttpError(400, 'InvalidRequest', `Invalid paging: ${describeDetails(paging.details)}.`, {
      details: paging.details,
    });
  }
  if (paging.page === null) return repository.listUsers();
  const totalItems = await repository.countUsers();
  const { start, pagination } = locatePage(paging.page, totalItems);
  // Checked here, not by the database: `start` can pass 2^53 for absurd pages.
  const data = start < totalItems ? await repository.listUsers({ offset: start, limit: pagination.pageSize }) : [];
  return { data, pagination };
}

/** preValidation: the `{id}` of the path is a whole number from 1 (400 otherwise), before the body is judged. */
function checkId(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const { id } = request.params as { id: string };
  if (parseWholeNumber(id) === null) {
    throw new HttpError(400, 'InvalidRequest', 'The user id must be a whole number from 1.', {
      details: [{ target: 'id', message: 'must be a whole number from 1' }],
    });
  }
  done();
}

function readId(request: FastifyRequest): number {
  return Number((request.params as { id: string }).id);
}

/** preValidation: the body's media type must be exactly this one (JSON for POST and PUT, merge patch for PATCH). */
function requireMediaType(expected: string) {
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const actual = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (actual === expected) return done();
    throw new HttpError(
      415,
      'UnsupportedMediaType',
      expected === MERGE_PATCH
        ? 'A PATCH must be a JSON Merge Patch (Content-Type: application/merge-patch+json).'
        : 'Send the user as JSON (Content-Type: application/json).',
    );
  };
}

function checkFields(body: unknown, mode: 'create' | 'replace' | 'patch', id?: number): Partial<UserFields> {
  const check = validateUserFields(body as Record<string, unknown>, mode, id);
  if (!check.ok) {
    throw new HttpError(400, 'InvalidRequest', `The user is not valid: ${describeDetails(check.details)}.`, {
      details: check.details,
    });
  }
  return check.fields;
}

async function findUser(repository: Repository, id: number): Promise<User> {
  const user = await repository.getUser(id);
  if (!user) throw notFound(id);
  return user;
}

async function writeUser<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof EmailTakenError)) throw error;
    throw new HttpError(409, 'Conflict', 'The e-mail address is already taken.', {
      details: [{ target: 'email', message: 'is already taken' }],
    });
  }
}

function notFound(id: number): HttpError {
  return new HttpError(404, 'NotFound', `There is no user with id ${id}.`);
}
