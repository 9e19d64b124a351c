// Serves the showcase's production build (dist/showcase/browser) on 127.0.0.1 for the browser
// tests: static files, and index.html for every other path so deep links reach the router.
// With API_ORIGIN set (the reference server, e.g. http://127.0.0.1:3101), it also forwards /auth and
// /api there, as a reverse proxy in production would: one origin for the page and its API, so the
// SameSite=Strict refresh cookie travels and no CORS is involved.
import { createReadStream, statSync } from 'node:fs';
import { createServer, request as forward } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? 'dist/showcase/browser');
const port = Number(process.env.PORT ?? 4310);
const api = process.env.API_ORIGIN ? new URL(process.env.API_ORIGIN) : null;
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
  if (api && /^\/(auth|api)(\/|\?|$)/.test(request.url ?? '')) return proxy(request, response);
  const path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
  // normalize + join keep the path inside root: '..' segments cannot climb out of it.
  let file = join(root, normalize(path));
  if (!file.startsWith(root) || !isFile(file)) file = join(root, 'index.html');
  response.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' });
  createReadStream(file).pipe(response);
}).listen(port, '127.0.0.1', () =>
  console.log(`showcase on http://127.0.0.1:${port}${api ? `, /auth and /api from ${api.origin}` : ''}`),
);

/** Forwards the request to API_ORIGIN as it came (method, path, headers, body) and its answer back. */
function proxy(request, response) {
  const upstream = forward(
    { host: api.hostname, port: api.port, method: request.method, path: request.url, headers: request.headers },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    },
  );
  upstream.on('error', () => {
    response.writeHead(502, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ error: { code: 'BadGateway', message: 'The reference server is not reachable.' } }));
  });
  request.pipe(upstream);
}

function isFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
