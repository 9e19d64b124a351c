import { type RequestListener, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// Shared by the server-render specs (not part of the library build: see tsconfig.lib.json).

const globals = globalThis as { ngServerMode?: boolean };

/**
 * Runs the specs of the calling `describe` as a server bundle does: `ngServerMode` defined from the
 * start (without it, platformServer() would set it for one render and unset it when that render
 * ends, under any render still running), and without dev mode's "Angular is running in development
 * mode." on every bootstrap.
 */
export function runAsServerBundle(): void {
  let serverModeBefore: boolean | undefined;
  beforeAll(() => {
    const log = console.log;
    jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      if (args[0] !== 'Angular is running in development mode.') log(...args);
    });
    serverModeBefore = globals.ngServerMode;
    globals.ngServerMode = true;
  });
  afterAll(() => {
    globals.ngServerMode = serverModeBefore;
    jest.restoreAllMocks();
  });
}

/** An HTTP server on 127.0.0.1 and a free port, for a spec's backend. */
export async function listenOnLoopback(handler: RequestListener): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // fetch keeps connections alive; without this, close() waits for them to time out.
        server.closeAllConnections();
      }),
  };
}

/** The text of the `<p>` with this id in the rendered HTML. */
export function textOf(html: string, id: string): string | undefined {
  return new RegExp(`<p id="${id}">([^<]*)</p>`).exec(html)?.[1];
}
