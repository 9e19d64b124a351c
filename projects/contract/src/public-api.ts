/*
 * The contract both backends share: the reference server (Node) and the showcase's in-memory backend
 * (in the browser) import these rules as `#contract`, so they cannot drift. Plain TypeScript only: no
 * framework, no Node or browser API, and each file imports nothing but its siblings. The demo data
 * both backends start with is apart from the rules: `#contract/demo` (../demo/public-api.ts).
 */
export { BEARER_CHALLENGES } from './bearer-challenges.js';
export { checkUserBodyShape } from './check-user-body-shape.js';
export { confusableSkeleton } from './confusable-skeleton.js';
export { describeDetails } from './describe-details.js';
export { emailKey } from './email-key.js';
export type { ErrorDetail } from './error-detail.js';
export { findInvisibleCharacter } from './find-invisible-character.js';
export { MAX_ERROR_DETAILS, invalidRequest } from './invalid-request.js';
export { negotiateVersion } from './negotiate-version.js';
export type { VersionNegotiation } from './negotiate-version.js';
export { parseWholeNumber } from './parse-whole-number.js';
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, locatePage, readPaging } from './read-paging.js';
export type { PageRequest, Pagination, PagingCheck } from './read-paging.js';
export { readBearerToken } from './read-bearer-token.js';
export { MAX_EMAIL_LENGTH, MAX_NAME_LENGTH, validateUserFields } from './validate-user-fields.js';
export type { UserFields, UserFieldsCheck } from './validate-user-fields.js';
