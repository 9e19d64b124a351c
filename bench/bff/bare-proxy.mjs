/* global fetch */
// The floor of a proxy on Web-standard fetch, in a process of its own (started by `proxyOverhead`):
// a `node:http` server that forwards each GET to the API with `fetch` (as the BFF does, through
// oauth4webapi) with the caller's own `Authorization`, and relays the status, content type and body.
// No session, no CSRF check, no Web `Request` for the incoming call. BENCH_CONFIG: `{ apiUrl }`.
// Prints `ready { url }` once it listens.
import { createServer } from 'node:http';

const { apiUrl } = JSON.parse(process.env.BENCH_CONFIG);
const server = createServer((req, res) => {
  fetch(apiUrl + req.url, { headers: { authorization: req.headers.authorization ?? '' } })
    .then(async (response) => {
      res.writeHead(response.status, { 'content-type': response.headers.get('content-type') ?? 'text/plain' });
      for await (const chunk of response.body ?? []) res.write(chunk);
      res.end();
    })
    .catch((error) => res.writeHead(502).end(String(error)));
});
server.keepAliveTimeout = 60_000;
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
server.listen(0, '127.0.0.1', () =>
  console.log(`ready ${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}`),
);
