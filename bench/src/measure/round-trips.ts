import {
  type HttpBackend,
  type HttpEvent,
  HttpErrorResponse,
  HttpEventType,
  type HttpRequest,
  HttpResponse,
} from '@angular/common/http';
import { DOCUMENT } from '@angular/core';
import { Observable } from 'rxjs';

import { CONTENDERS } from '../contenders';
import type { Contender } from '../contenders/contender';
import { ngxTokenRefreshProactive, ngxTokenRefreshShowcase } from '../contenders/ngx-token-refresh';
import { createBenchApp } from '../harness/bench-app';
import { API_URL, REFRESH_URL } from '../harness/fake-backend';
import { type BrowserDocumentStub, VIRTUAL_EPOCH_MS, VirtualClock, inVirtualTime } from '../harness/virtual-time';

/** The steady-traffic scenario, in virtual time. */
export interface RoundTripScenario {
  /** Requests per second the application sends, evenly spaced. */
  readonly rates: readonly number[];
  /** Lifetime of an access token (the showcase's default: 30 s), in whole seconds (a JWT's `exp`). */
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
  /**
   * Tokens that carried at least one API request and then ended: rejected as expired, or replaced
   * ahead of expiry (a newer token carried a request after them, once they had served at least half
   * their lifetime; one replaced sooner was replaced by a duplicate refresh). The last token in use,
   * still valid when the traffic stops, is not one.
   */
  readonly expiries: number;
  /** Of the expiries, the tokens rejected as expired (the rest were replaced ahead of expiry). */
  readonly expiredInUse: number;
  /** API requests answered 401 (each one is a round trip spent for nothing, then repeated). */
  readonly unauthorized: number;
  readonly refreshCalls: number;
  /** Calls whose caller saw an error. */
  readonly failedCalls: number;
  /** How long the traffic ran (virtual ms): refresh calls per minute are counted over this. */
  readonly trafficMs: number;
}

/** The contenders that refresh, with ours wired as in the showcase, reactive and proactive. */
const SIMULATED: readonly Contender[] = [
  CONTENDERS['behavior-subject'],
  CONTENDERS['ngx-auth'],
  ngxTokenRefreshShowcase,
  ngxTokenRefreshProactive,
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

/**
 * One contender at one rate. The app lives in virtual time from its creation to its destruction:
 * its timers (the refresh timeout, proactive refresh) and `Date.now` are the clock's. The clock runs
 * until the traffic has stopped and every call has settled; what is still scheduled then (a timer
 * for the next refresh ahead of expiry) must go with the app.
 */
function simulate(contender: Contender, rate: number, scenario: RoundTripScenario): RoundTripResult {
  const clock = new VirtualClock();
  const backend = new ServerWithLatency(clock, scenario);
  const interval = 1000 / rate;
  const end = scenario.tokenLifetimeMs * scenario.lifetimes;
  let calls = 0;
  let settled = 0;
  let failedCalls = 0;
  let planned = 0;
  const observer = {
    complete: () => settled++,
    error: () => {
      failedCalls++;
      settled++;
    },
  };
  inVirtualTime(clock, () => {
    const app = createBenchApp(contender, backend);
    for (let at = 0; at < end; at += interval) {
      planned++;
      clock.schedule(at, () => {
        calls++;
        app.http.get(API_URL).subscribe(observer);
      });
    }
    // The horizon only matters if calls hang: a timer that re-arms would keep the clock going forever.
    const horizon = end + 2 * scenario.tokenLifetimeMs;
    clock.run(() => (calls === planned && settled === calls) || clock.now > horizon);
    if (settled < planned)
      throw new Error(`bench: ${contender.id} at ${rate}/s: ${planned - settled} call(s) never settled`);
    const document = app.injector.get(DOCUMENT) as Partial<BrowserDocumentStub>;
    app.destroy();
    const left = clock.pending;
    const listeners = document.listenerCount?.() ?? 0;
    if (left > 0 || listeners > 0) {
      throw new Error(
        `bench: ${contender.id} at ${rate}/s left ${left} timer(s) or request(s) and ${listeners} listener(s) behind after destroy`,
      );
    }
  });
  const expiries = backend.expiries();
  return {
    contender: contender.id,
    rate,
    calls,
    expiries: expiries.all,
    expiredInUse: expiries.rejected,
    unauthorized: backend.unauthorized,
    refreshCalls: backend.refreshCalls,
    failedCalls,
    trafficMs: end,
  };
}

/** What the server knows of a token it issued. Times in virtual ms. */
interface Issued {
  readonly serial: number;
  readonly issuedAt: number;
  /** When it stops being accepted: `tokenLifetimeMs` after it was issued. */
  readonly expiresAt: number;
  /** When an API request first carried it (answered or rejected), or null. */
  firstCarriedAt: number | null;
  /** Whether a request carrying it was rejected because it had expired. */
  rejected: boolean;
}

/**
 * The server behind a network: every request is answered `latencyMs ± jitterMs` after it is sent
 * (the server decides when it answers, as the showcase's latency sits in front of its backend).
 * Access tokens are valid for `tokenLifetimeMs` from issue, and are JWTs (unsigned: the client never
 * verifies one) with `iat` and `exp` in whole seconds since the epoch: `iat` is the issue time rounded
 * down to the second and `exp` = `iat` + the lifetime, as a JWT library writes them, so `exp` is never
 * later than the real end (at most 999 ms earlier). A refresh issues a new one. Time is the virtual
 * clock's, from {@link VIRTUAL_EPOCH_MS}.
 */
class ServerWithLatency implements HttpBackend {
  unauthorized = 0;
  refreshCalls = 0;
  private readonly issued = new Map<string, Issued>();
  private serial = 0;
  private readonly random: () => number;
  private readonly lifetimeSeconds: number;

  constructor(
    private readonly clock: VirtualClock,
    private readonly scenario: RoundTripScenario,
  ) {
    this.random = mulberry32(scenario.seed);
    this.lifetimeSeconds = scenario.tokenLifetimeMs / 1000;
    if (!Number.isInteger(this.lifetimeSeconds)) {
      throw new Error(`bench: tokenLifetimeMs must be whole seconds (a JWT's exp), got ${scenario.tokenLifetimeMs}`);
    }
  }

  issueToken(): string {
    const serial = ++this.serial;
    const now = this.clock.now;
    const iat = Math.floor((VIRTUAL_EPOCH_MS + now) / 1000);
    const exp = iat + this.lifetimeSeconds;
    const token = [
      { alg: 'none', typ: 'JWT' },
      { sub: 'bench', jti: String(serial), iat, exp },
    ]
      .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url'))
      .concat('unsigned')
      .join('.');
    this.issued.set(token, {
      serial,
      issuedAt: now,
      expiresAt: now + this.scenario.tokenLifetimeMs,
      firstCarriedAt: null,
      rejected: false,
    });
    return token;
  }

  /**
   * Tokens that carried a request and then ended: rejected as expired, or replaced ahead of expiry (a
   * newer token carried a request after it, once it had served at least half its lifetime). A token
   * replaced sooner was replaced by a duplicate refresh: that refresh counts, but no expiry.
   */
  expiries(): { all: number; rejected: number } {
    const carried = [...this.issued.values()].filter((t) => t.firstCarriedAt !== null);
    let all = 0;
    let rejected = 0;
    for (const token of carried) {
      const replacedAt = Math.min(
        ...carried.filter((newer) => newer.serial > token.serial).map((newer) => newer.firstCarriedAt!),
      );
      if (token.rejected) rejected++;
      // No newer token carried a request (Infinity): the token in use when the traffic stopped.
      const replaced = replacedAt !== Infinity && replacedAt - token.issuedAt >= this.scenario.tokenLifetimeMs / 2;
      if (token.rejected || replaced) all++;
    }
    return { all, rejected };
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
        const issued = token === undefined ? undefined : this.issued.get(token);
        if (issued) issued.firstCarriedAt ??= this.clock.now;
        if (issued === undefined || issued.expiresAt <= this.clock.now) {
          this.unauthorized++;
          if (issued) issued.rejected = true;
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
