// Serves the showcase's production build (dist/showcase/browser) on 127.0.0.1 for the browser
// tests: static files, and index.html for every other path so deep links reach the router.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? 'dist/showcase/browser');
const port = Number(process.env.PORT ?? 4310);
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};

createServer((request, response) => {
  const path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
  // normalize + join keep the path inside root: '..' segments cannot climb out of it.
  let file = join(root, normalize(path));
  if (!file.startsWith(root) || !isFile(file)) file = join(root, 'index.html');
  response.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' });
  createReadStream(file).pipe(response);
}).listen(port, '127.0.0.1', () => console.log(`showcase on http://127.0.0.1:${port}`));

function isFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
