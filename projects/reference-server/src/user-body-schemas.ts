/*
 * The Fastify side of user bodies: the JSON schemas that run before a handler. The rules beyond
 * them (lengths, Unicode, e-mail syntax) are the contract's `validateUserFields`, shared with the
 * showcase's in-memory backend.
 */

/** The JSON schema of a user body (create and replace), checked by Fastify before the handler runs. */
export const USER_BODY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'email'],
  properties: {
    id: { type: 'integer' },
    // Generous raw bounds (before trimming); the exact rules are the contract's validateUserFields.
    name: { type: 'string', maxLength: 1000 },
    email: { type: 'string', maxLength: 1000 },
  },
} as const;

/** The JSON schema of a JSON Merge Patch of a user: any subset, `null` refused by validateUserFields. */
export const USER_PATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    name: { type: ['string', 'null'], maxLength: 1000 },
    email: { type: ['string', 'null'], maxLength: 1000 },
  },
} as const;
