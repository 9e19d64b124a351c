import {
  type HttpBackend,
  type HttpEvent,
  HttpErrorResponse,
  HttpEventType,
  type HttpRequest,
  HttpResponse,
} from '@angular/common/http';
import { Observable } from 'rxjs';

import { CONTENDERS } from '../contenders';
import type { Contender } from '../contenders/contender';
import { ngxTokenRefreshShowcase } from '../contenders/ngx-token-refresh';
import { createBenchApp } from '../harness/bench-app';
import { API_URL, REFRESH_URL } from '../harness/fake-backend';

/** The steady-traffic scenario, in virtual time. */
export interface RoundTripScenario {
  /** Requests per second the application sends, evenly spaced. */
  readonly rates: readonly number[];
  /** Lifetime of an access token (the showcase's default: 30 s). */
  readonly tokenLifetimeMs: number;
  /** Time of a round trip (the showcase's default latency: 400 ms), give or take `jitterMs`. */
  readonly latencyMs: number;
  readonly jitterMs: number;
  /** How many token lifetimes the traffic runs for. */
  readonly lifetimes: number;
  readonly seed: number;
}

export interface RoundTripResult {
  readonly contender: string;
  readonly rate: number;
  /** Calls the application made. */
  readonly calls: number;
  /** Tokens that expired while in use (each is one expiry). */
  readonly expiries: number;
  /** API requests answered 401 (each one is a round trip spent for nothing, then repeated). */
  readonly unauthorized: number;
  readonly refreshCalls: number;
  /** Calls whose caller saw an error. */
  readonly failedCalls: number;
}

/** The contenders that refresh, with ours wired as in the showcase. */
const SIMULATED: readonly Contender[] = [
  CONTENDERS['behavior-subject'],
  CONTENDERS['ngx-auth'],
  ngxTokenRefreshShowcase,
];

/**
 * Counts the round trips that token expiry adds under steady traffic: the 401s (requests that were
 * sent with a token the server no longer takes) and the refresh calls, per expiry. Runs on a virtual
 * clock, so minutes of traffic take milliseconds and the counts are exactly reproducible.
 */
export async function runRoundTrips(scenario: RoundTripScenario): Promise<RoundTripResult[]> {
  const results: RoundTripResult[] = [];
  for (const contender of SIMULATED) {
    for (const rate of scenario.rates) results.push(simulate(contender, rate, scenario));
  }
  return results;
}

function simulate(contender: Contender, rate: number, scenario: RoundTripScenario): RoundTripResult {
  const clock = new VirtualClock();
  const backend = new ServerWithLatency(clock, scenario);
  const app = createBenchApp(contender, backend);
  const interval = 1000 / rate;
  const end = scenario.tokenLifetimeMs * scenario.lifetimes;
  let calls = 0;
  let failedCalls = 0;
  const observer = { error: () => failedCalls++ };
  for (let at = 0; at < end; at += interval) {
    clock.schedule(at, () => {
      calls++;
      app.http.get(API_URL).subscribe(observer);
    });
  }
  clock.run();
  app.destroy();
  return {
    contender: contender.id,
    rate,
    calls,
    expiries: backend.expiredTokens.size,
    unauthorized: backend.unauthorized,
    refreshCalls: backend.refreshCalls,
    failedCalls,
  };
}

/** Events in time order (ties in the order they were scheduled). */
class VirtualClock {
  now = 0;
  private queue: { at: number; seq: number; run: () => void }[] = [];
  private seq = 0;

  schedule(at: number, run: () => void): () => void {
    const event = { at, seq: this.seq++, run };
    let low = 0;
    let high = this.queue.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      const other = this.queue[middle];
      if (other.at < at || (other.at === at && other.seq < event.seq)) low = middle + 1;
      else high = middle;
    }
    this.queue.splice(low, 0, event);
    return () => {
      const index = this.queue.indexOf(event);
      if (index >= 0) this.queue.splice(index, 1);
    };
  }

  run(): void {
    for (let event = this.queue.shift(); event; event = this.queue.shift()) {
      this.now = event.at;
      event.run();
    }
  }
}

/**
 * The server behind a network: every request is answered `latencyMs ± jitterMs` after it is sent
 * (the server decides when it answers, as the showcase's latency sits in front of its backend).
 * Access tokens are valid for `tokenLifetimeMs` from issue; a refresh issues a new one.
 */
class ServerWithLatency implements HttpBackend {
  unauthorized = 0;
  refreshCalls = 0;
  readonly expiredTokens = new Set<string>();
  private readonly expiry = new Map<string, number>();
  private serial = 0;
  private readonly random: () => number;

  constructor(
    private readonly clock: VirtualClock,
    private readonly scenario: RoundTripScenario,
  ) {
    this.random = mulberry32(scenario.seed);
  }

  issueToken(): string {
    const token = `token-${++this.serial}`;
    this.expiry.set(token, this.clock.now + this.scenario.tokenLifetimeMs);
    return token;
  }

  handle(request: HttpRequest<unknown>): Observable<HttpEvent<unknown>> {
    return new Observable<HttpEvent<unknown>>((subscriber) => {
      subscriber.next({ type: HttpEventType.Sent });
      const { latencyMs, jitterMs } = this.scenario;
      const latency = latencyMs + (this.random() * 2 - 1) * jitterMs;
      return this.clock.schedule(this.clock.now + latency, () => {
        if (request.url === REFRESH_URL) {
          this.refreshCalls++;
          const accessToken = this.issueToken();
          subscriber.next(new HttpResponse({ status: 200, url: REFRESH_URL, body: { accessToken } }));
          subscriber.complete();
          return;
        }
        const token = /^Bearer (.+)$/.exec(request.headers.get('Authorization') ?? '')?.[1];
        const expiresAt = token === undefined ? undefined : this.expiry.get(token);
        if (token === undefined || expiresAt === undefined || expiresAt <= this.clock.now) {
          this.unauthorized++;
          if (token !== undefined) this.expiredTokens.add(token);
          subscriber.error(new HttpErrorResponse({ status: 401, statusText: 'Unauthorized', url: request.url }));
          return;
        }
        subscriber.next(new HttpResponse({ status: 200, url: request.url, body: [] }));
        subscriber.complete();
      });
    });
  }
}

/** A small seeded random generator, so the jitter is the same on every run. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
