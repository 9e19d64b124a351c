import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Buffer } from 'node:buffer';

/**
 * Calls `path` for each of `sessions` (each an object of request headers) `callsPerSecond` times a
 * second, in bursts of `burst` calls at once, for `seconds`: an open loop, whose calls leave on a
 * schedule whatever the answers do (a slow answer does not hold the next call back, as it would in a
 * closed loop such as autocannon's), so a slow refresh meets the calls that real pages would still make.
 * The sessions' bursts are spread evenly over the interval. The calls go to `targets` in turn (one
 * instance, or several behind one origin), so one burst reaches each of them.
 *
 * Answers every call's `{ status, code, ms }` (status 0 and the error's message as `code` when no
 * answer came; `code` is the BFF's error code otherwise), and how late the schedule ran: `lateMs`, the
 * largest delay of a burst behind its time.
 */
export async function openLoopLoad({ targets, sessions, path, callsPerSecond, burst, seconds }) {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const interval = (burst * 1000) / callsPerSecond;
  const bursts = [];
  sessions.forEach((headers, index) => {
    for (let at = (index / sessions.length) * interval; at < seconds * 1000; at += interval) {
      bursts.push({ at, headers });
    }
  });
  bursts.sort((a, b) => a.at - b.at);
  const calls = [];
  let turn = 0;
  let lateMs = 0;
  const start = performance.now();
  for (const { at, headers } of bursts) {
    const wait = start + at - performance.now();
    if (wait > 0) await sleep(wait);
    lateMs = Math.max(lateMs, performance.now() - start - at);
    for (let index = 0; index < burst; index++) {
      calls.push(call(agent, new URL(path, targets[turn++ % targets.length]), headers));
    }
  }
  const answers = await Promise.all(calls);
  agent.destroy();
  return { answers, lateMs };
}

/** A call still unanswered after this long counts as failed (and the run ends). */
const CALL_TIMEOUT = 30_000;

function call(agent, url, headers) {
  const sent = performance.now();
  return new Promise((resolve) => {
    const outgoing = request(url, { agent, headers }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        const status = response.statusCode ?? 0;
        let code = null;
        if (status !== 200) {
          try {
            code = JSON.parse(Buffer.concat(chunks).toString('utf8')).error?.code ?? null;
          } catch {
            code = 'not JSON';
          }
        }
        resolve({ status, code, ms: performance.now() - sent });
      });
    });
    outgoing.on('error', (error) => resolve({ status: 0, code: error.message, ms: performance.now() - sent }));
    outgoing.setTimeout(CALL_TIMEOUT, () => outgoing.destroy(new Error(`no answer within ${CALL_TIMEOUT} ms`)));
    outgoing.end();
  });
}
