/**
 * @jest-environment node
 */
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, type Server, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type BffServerOptions, createBffServer } from './create-bff-server';

// The showcase's BFF server over real HTTP, with a stand-in for the BFF's handle(): what the BFF
// receives of a Node request, how its Web Response reaches the browser, and the built app around it.

describe('createBffServer', () => {
  let server: Server | null = null;
  afterEach(async () => {
    server?.closeAllConnections();
    if (server) await new Promise((resolve) => server?.close(resolve));
    server = null;
  });

  const serve = async (handle: BffServerOptions['bff']['handle'], onError?: (error: unknown) => void) => {
    const dir = mkdtempSync(join(tmpdir(), 'bff-server-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>app</title>');
    writeFileSync(join(dir, 'main-ABCD1234.js'), 'console.log(1);');
    server = createBffServer({ bff: { handle }, browserDir: dir, origin: 'http://127.0.0.1:4200', onError });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  };

  it("hands the BFF the request's method, path on the public origin, headers and streamed body", async () => {
    const seen: { url: string; method: string; cookie: string | null; csrf: string | null; body: string }[] = [];
    const port = await serve(async (request) => {
      seen.push({
        url: request.url,
        method: request.method,
        cookie: request.headers.get('cookie'),
        csrf: request.headers.get('x-csrf'),
        body: await request.text(),
      });
      return new Response('ok');
    });

    const answer = await send(port, {
      method: 'POST',
      path: '/api/me?x=1',
      headers: { 'x-csrf': '1', cookie: 'a=1; __Host-bff-session=abc', host: '127.0.0.1:4200' },
      chunks: ['{"a":', '1}'],
    });

    expect(answer.status).toBe(200);
    expect(seen).toEqual([
      {
        url: 'http://127.0.0.1:4200/api/me?x=1',
        method: 'POST',
        cookie: 'a=1; __Host-bff-session=abc',
        csrf: '1',
        body: '{"a":1}',
      },
    ]);
  });

  it('keeps a path that looks like another host a path of this origin', async () => {
    const urls: string[] = [];
    const port = await serve(async (request) => {
      urls.push(request.url);
      return new Response(null, { status: 204 });
    });

    await send(port, { path: '//other.example/api/me', headers: { host: '127.0.0.1:4200' } });

    expect(urls).toEqual(['http://127.0.0.1:4200//other.example/api/me']);
  });

  it("writes each of the BFF's Set-Cookie headers as a header of its own, with its status and headers", async () => {
    const port = await serve(async () => {
      const headers = new Headers({ 'content-type': 'application/json', 'cache-control': 'no-store' });
      headers.append('set-cookie', '__Host-bff-session=abc; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=60');
      headers.append(
        'set-cookie',
        '__Host-bff-login=; Path=/; Secure; HttpOnly; Expires=Thu, 01 Jan 1970 00:00:00 GMT',
      );
      return new Response('{"ok":true}', { status: 201, headers });
    });

    const answer = await send(port, { path: '/bff/callback', headers: { host: '127.0.0.1:4200' } });

    expect(answer.status).toBe(201);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers['set-cookie']).toEqual([
      '__Host-bff-session=abc; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=60',
      '__Host-bff-login=; Path=/; Secure; HttpOnly; Expires=Thu, 01 Jan 1970 00:00:00 GMT',
    ]);
    expect(answer.body).toBe('{"ok":true}');
  });

  it("streams the BFF's answer: the first part arrives before the rest is made", async () => {
    let finish: () => void = () => undefined;
    const port = await serve(async () => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('first '));
          finish = () => {
            controller.enqueue(new TextEncoder().encode('second'));
            controller.close();
          };
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/plain' } });
    });

    const response = await open(port, { path: '/api/stream', headers: { host: '127.0.0.1:4200' } });
    const [first] = (await once(response, 'data')) as [Buffer];
    expect(first.toString()).toBe('first ');
    finish();
    expect(await readAll(response)).toBe('second');
  });

  it('aborts the request the BFF holds when the client goes before its answer', async () => {
    let signal: AbortSignal | null = null;
    const port = await serve(
      (request) =>
        new Promise((resolve) => {
          signal = request.signal;
          request.signal.addEventListener('abort', () => resolve(new Response('too late')));
        }),
    );

    const client = httpRequest({ port, host: '127.0.0.1', path: '/api/slow', headers: { host: '127.0.0.1:4200' } });
    client.on('error', () => undefined);
    client.end();
    await until(() => signal !== null);
    client.destroy();

    await until(() => signal?.aborted === true);
  });

  it("serves the built app for what is not the BFF's: files, index.html for a page's navigation, 404 otherwise", async () => {
    const port = await serve(async () => null);
    const host = { host: '127.0.0.1:4200' };

    const script = await send(port, { path: '/main-ABCD1234.js', headers: host });
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.body).toBe('console.log(1);');

    const deepLink = await send(port, { path: '/account?tab=2', headers: { ...host, accept: 'text/html' } });
    expect(deepLink.status).toBe(200);
    expect(deepLink.headers['cache-control']).toBe('no-cache');
    expect(deepLink.body).toBe('<!doctype html><title>app</title>');

    expect((await send(port, { path: '/api/other', headers: { ...host, accept: 'application/json' } })).status).toBe(
      404,
    );
    expect((await send(port, { path: '/%2e%2e/%2e%2e/etc/passwd', headers: host })).status).toBe(404);
    expect((await send(port, { method: 'POST', path: '/index.html', headers: host })).status).toBe(405);
  });

  it("sends a page's navigation for another host to the public origin", async () => {
    const port = await serve(async () => new Response('BFF'));

    const answer = await send(port, { path: '/bff/login?returnUrl=%2F', headers: { host: `localhost:${port}` } });

    expect(answer.status).toBe(308);
    expect(answer.headers['location']).toBe('http://127.0.0.1:4200/bff/login?returnUrl=%2F');
  });

  it('answers 500 for a bug in the BFF, and tells onError', async () => {
    const errors: unknown[] = [];
    const port = await serve(
      async () => {
        throw new Error('bug');
      },
      (error) => errors.push(error),
    );

    const answer = await send(port, { path: '/api/me', headers: { host: '127.0.0.1:4200' } });

    expect(answer.status).toBe(500);
    expect(errors).toEqual([new Error('bug')]);
  });
});

interface Sent {
  readonly method?: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly chunks?: readonly string[];
}

/** A request over HTTP, its body written in `chunks` (Transfer-Encoding: chunked); the response, unread. */
async function open(port: number, { method = 'GET', path, headers = {}, chunks = [] }: Sent): Promise<IncomingMessage> {
  const client = httpRequest({ port, host: '127.0.0.1', method, path, headers });
  const response = once(client, 'response') as Promise<[IncomingMessage]>;
  for (const chunk of chunks) client.write(chunk);
  client.end();
  return (await response)[0];
}

async function send(port: number, sent: Sent) {
  const response = await open(port, sent);
  return { status: response.statusCode, headers: response.headers, body: await readAll(response) };
}

async function readAll(response: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of response) text += chunk;
  return text;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
