import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

// Every answer the suite receives is checked against the server's own OpenAPI document (see
// start-test-server.ts, which routes the global fetch through here), so the document cannot drift
// from the code: an undocumented status, another content type, or a body off its schema fails the test
// that received it.

/** A check of answers against one OpenAPI 3.1 document; from {@link createOpenApiResponseCheck}. */
export type OpenApiResponseCheck = (method: string, url: string, response: Response) => Promise<void>;

interface Operation {
  readonly responses?: Readonly<Record<string, { readonly content?: Readonly<Record<string, unknown>> }>>;
}

interface OpenApiDocument {
  readonly paths?: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
}

/**
 * Answered by Node's HTTP parser before any route is chosen (headers too large, the request too slow
 * to arrive), so they belong to no operation: any path, with the uniform error body.
 */
const BEFORE_ROUTING = new Set([408, 431]);

/** Served next to the API but not part of it: the document itself and its reference page. */
const DOCUMENTATION = /^\/(?:openapi\.json|docs(?:\/.*)?)$/;

/**
 * A check that throws, naming the request and what is wrong, unless the answer is one the document
 * describes: for a documented path and method, a documented status, one of its media types and a
 * body valid against its schema (no body where it declares none); for anything else (an unknown
 * path, a method the path does not have, an error the router answers before any route), an error
 * status with the uniform error body; so do 408 and 431 anywhere. HEAD is checked as GET without a body; a CORS preflight
 * (OPTIONS answered 204) and the documentation routes are not API answers.
 *
 * @example
 * const check = createOpenApiResponseCheck(app.swagger());
 * await check('GET', url, await fetch(url));
 */
export function createOpenApiResponseCheck(document: object): OpenApiResponseCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(document, 'openapi');
  const paths = Object.entries((document as OpenApiDocument).paths ?? {}).map(([template, operations]) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
    operations,
  }));
  const errorBody = schema('#/components/schemas/ErrorBody');

  function schema(pointer: string): ValidateFunction {
    const validate = ajv.getSchema(`openapi${pointer}`);
    if (!validate) throw new Error(`the OpenAPI document has no schema at ${pointer}`);
    return validate;
  }

  return async (method, url, response) => {
    const { pathname } = new URL(url);
    const verb = method.toUpperCase();
    if (DOCUMENTATION.test(pathname) || (verb === 'OPTIONS' && response.status === 204)) return;
    const where = `${verb} ${pathname} → ${response.status}`;
    const fail = (problem: string): never => {
      throw new Error(`answer not described by the OpenAPI document: ${where}: ${problem}`);
    };
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const text = verb === 'HEAD' ? '' : await response.clone().text();
    const path = paths.find(({ pattern }) => pattern.test(pathname));
    const operation = path?.operations[verb === 'HEAD' ? 'get' : verb.toLowerCase()];

    // Plain HTTP refused in HTTPS-only mode: answered for any path before routing, like 408 and 431.
    const httpsRequired = response.status === 403 && text.includes('"HttpsRequired"');
    if (!path || !operation || BEFORE_ROUTING.has(response.status) || httpsRequired) {
      if (response.status < 400) fail(`no documented operation, and not an error`);
      if (verb !== 'HEAD') checkJson(errorBody, 'application/json', mediaType, text, fail);
      return;
    }
    const status = String(response.status);
    const documented = operation.responses?.[status] ?? operation.responses?.[`${status[0]}XX`];
    if (!documented) fail(`status not documented (documented: ${Object.keys(operation.responses ?? {}).join(', ')})`);
    if (verb === 'HEAD') return;
    const content = documented?.content;
    if (!content) {
      if (text !== '') fail(`a body where the document declares none: ${text.slice(0, 200)}`);
      return;
    }
    if (!(mediaType in content))
      fail(`content type ${mediaType || '(none)'}; documented: ${Object.keys(content).join(', ')}`);
    const key = documented === operation.responses?.[status] ? status : `${status[0]}XX`;
    const pointer = ['paths', path.template, verb.toLowerCase(), 'responses', key, 'content', mediaType, 'schema']
      .map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1'))
      .join('/');
    checkJson(schema(`#/${pointer}`), mediaType, mediaType, text, fail);
  };
}

function checkJson(
  validate: ValidateFunction,
  expectedType: string,
  mediaType: string,
  text: string,
  fail: (problem: string) => never,
): void {
  if (mediaType !== expectedType) fail(`content type ${mediaType || '(none)'}, not ${expectedType}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    fail(`the body is not JSON: ${text.slice(0, 200)}`);
  }
  if (!validate(body)) {
    const problems = (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`);
    fail(`${problems.join('; ')}: ${text.slice(0, 300)}`);
  }
}
