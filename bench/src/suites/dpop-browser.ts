import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

import type { BenchConfig } from '../config';
import type { DPoPSubjectId, DPoPSubjectReady } from '../measure/dpop-rounds';
import type { DPoPEnvironment } from '../report/results';
import { type AskRound, DPOP_SUBJECTS, type DPoPCopy, interleave, summarize } from './dpop';

const WORKSPACE = new URL('../../browser/', import.meta.url);
const OUTPUT = new URL('../../../dist/bench-browser/browser/', import.meta.url);

/**
 * How the repository's browser tests start Chromium (e2e/chromium-launch-options.mjs): Debian's, or the
 * browser at CHROME_BIN; Playwright never downloads one.
 */
const LAUNCH = {
  executablePath: process.env['CHROME_BIN'] || '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
};

/** The page's global scope, as the bench page (bench/browser/src/main.ts) leaves it. */
interface BenchWindow {
  readonly crossOriginIsolated: boolean;
  readonly dpopBench: {
    start(id: DPoPSubjectId): Promise<DPoPSubjectReady>;
    round(parallel: number, ms: number): Promise<{ requests: number; ms: number }>;
  };
}

/**
 * The same rounds in Chromium: a production build of the page (bench/browser/, `ng build`: the library
 * linked and optimised as in an application), served from 127.0.0.1 (a secure context, so WebCrypto and
 * IndexedDB are there; cross-origin isolated, so `performance.now()` is not coarsened to 100 µs), one
 * browser context (its own storage, its own renderer) per copy of a subject, timed in the page.
 */
export async function runDPoPInChromium(
  config: BenchConfig['dpop'],
  log: (line: string) => void,
): Promise<DPoPEnvironment> {
  buildPage(log);
  const server = await serve();
  const { chromium } = await import('@playwright/test');
  const browser = await chromium.launch(LAUNCH);
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const copies: { copy: DPoPCopy; ask: AskRound }[] = [];
    for (let i = 0; i < config.isolates; i++) {
      for (const subject of DPOP_SUBJECTS) {
        const context = await browser.newContext();
        const page = await context.newPage();
        page.on('pageerror', (error) => log(`  page error (${subject}): ${error.message}`));
        await page.goto(url);
        if (!(await page.evaluate(() => (globalThis as unknown as BenchWindow).crossOriginIsolated)))
          throw new Error('bench: the page is not isolated');
        const ready = await page.evaluate((id) => (globalThis as unknown as BenchWindow).dpopBench.start(id), subject);
        const copy: DPoPCopy = { subject, ready, sequential: [], parallel: [], cpu: [] };
        const ask: AskRound = async (parallel, ms) => {
          const answer = await page.evaluate(([p, m]) => (globalThis as unknown as BenchWindow).dpopBench.round(p, m), [
            parallel,
            ms,
          ] as const);
          return { us: (answer.ms * 1000) / answer.requests, cpuUs: null };
        };
        copies.push({ copy, ask });
      }
    }
    await interleave(copies, config, log);
    return summarize(
      `Chromium ${browser.version()}`,
      copies.map((c) => c.copy),
      config,
    );
  } finally {
    await browser.close();
    server.close();
  }
}

function buildPage(log: (line: string) => void): void {
  const started = performance.now();
  const ng = createRequire(import.meta.url).resolve('@angular/cli/bin/ng.js');
  const result = spawnSync(process.execPath, [ng, 'build', 'dpop-page'], {
    cwd: fileURLToPath(WORKSPACE),
    encoding: 'utf8',
    env: { ...process.env, NG_CLI_ANALYTICS: 'false', NG_FORCE_TTY: 'false', FORCE_COLOR: '0' },
  });
  if (result.status !== 0) throw new Error(`bench: ng build dpop-page failed:\n${result.stdout}\n${result.stderr}`);
  log(`  page built (ng build dpop-page, ${((performance.now() - started) / 1000).toFixed(1)} s)`);
}

/** Serves the page's files on 127.0.0.1, cross-origin isolated. */
function serve(): Promise<Server> {
  const files = new Map(readdirSync(OUTPUT).map((name) => [`/${name}`, readFileSync(new URL(name, OUTPUT))]));
  files.set(
    '/',
    Buffer.from(
      '<!doctype html><meta charset="utf-8"><title>DPoP bench</title><script type="module" src="main.js"></script>',
    ),
  );
  const server = createServer((request, response) => {
    const body = files.get(request.url ?? '');
    const headers = {
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Content-Type': request.url === '/' ? 'text/html' : 'text/javascript',
    };
    if (body) response.writeHead(200, headers).end(body);
    else response.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
