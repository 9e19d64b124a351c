// `npm run lint:openapi` (through tsx, from the TypeScript sources): writes the server's OpenAPI
// document, as GET /openapi.json serves it with the default configuration and DPOP=allowed (the
// configuration whose document says the most: the default's, plus DPoP's scheme, header, nonces and
// errors), to the file named by the first argument (default: stdout), for an independent linter.
// Needs no database: nothing is queried.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

import { buildServer } from '../src/build-server.js';
import { readConfig } from '../src/read-config.js';

const app = await buildServer({
  config: readConfig({ LOG_LEVEL: 'silent', DPOP: 'allowed' }),
  repository: /** @type {never} */ ({}),
});
await app.ready();
const document = `${JSON.stringify(app.swagger(), null, 2)}\n`;
await app.close();
const out = process.argv[2];
if (out) {
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, document);
} else process.stdout.write(document);
