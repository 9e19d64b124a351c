import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/** A file name with a content hash (`main-3KXQ2Y7N.js`, as the production build names them). */
const HASHED = /-[A-Z0-9]{8}\.(?:js|css)$/;

/**
 * Answers a request with the built app in `root` (`dist/showcase-bff/browser`): the file at the
 * request's path, or `index.html` for a page's navigation to any other path (`Accept: text/html`),
 * so that a deep link or a `returnUrl` reaches the app; anything else is a 404, not a page that a
 * script would take for data. Only `GET` and `HEAD`.
 *
 * @example serveBrowserApp('dist/showcase-bff/browser', req, res)
 */
export async function serveBrowserApp(root: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Method not allowed');
    return;
  }
  let file = fileOf(root, req.url ?? '/');
  if (file === null || !(await isFile(file))) {
    if (!(req.headers.accept ?? '').includes('text/html')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found');
      return;
    }
    file = join(root, 'index.html');
  }
  res.writeHead(200, {
    'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    // The page names its scripts by hash: those never change, and the page itself is always asked again.
    'cache-control': HASHED.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache',
    'x-content-type-options': 'nosniff',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(file).pipe(res);
}

/** The file under `root` for a request path, or `null` for one that would leave it. */
function fileOf(root: string, url: string): string | null {
  let path: string;
  try {
    path = decodeURIComponent(new URL(url, 'http://app.invalid').pathname);
  } catch {
    return null;
  }
  const file = join(root, normalize(path));
  return file === root || file.startsWith(root.endsWith(sep) ? root : `${root}${sep}`) ? file : null;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
