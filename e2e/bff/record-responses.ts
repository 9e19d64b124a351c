import type { BrowserContext, Request } from '@playwright/test';

/** One response a page of the context received, as text to search. */
export interface RecordedResponse {
  readonly url: string;
  readonly status: number;
  /** Every header, `Set-Cookie` included, as `name: value` lines. */
  readonly headers: string;
  /** The body, or `null` where there is none to read (a redirect) or Chromium no longer had it. */
  readonly body: string | null;
}

/**
 * Records every response the pages of `context` receive from now on (documents, scripts, the app's
 * calls, the provider's pages, redirects), with its headers and body, once it has arrived whole (or
 * failed). `settled()` waits for the bodies still being read, and answers all recorded so far.
 */
export function recordResponses(context: BrowserContext): { settled(): Promise<RecordedResponse[]> } {
  const pending: Promise<RecordedResponse | null>[] = [];
  const record = async (request: Request): Promise<RecordedResponse | null> => {
    const response = await request.response();
    if (response === null) return null;
    const headers = (await response.headersArray()).map(({ name, value }) => `${name}: ${value}`).join('\n');
    let body: string | null = null;
    try {
      body = (await response.body()).toString('latin1');
    } catch {
      // A redirect has no body; Chromium may no longer have one (a page that navigated on, a body
      // read as a stream: "No data found for resource"). The balancer's log has the app's.
    }
    return { url: response.url(), status: response.status(), headers, body };
  };
  // Only once a request has ended: a body still arriving would keep `settled()` waiting.
  context.on('requestfinished', (request) => pending.push(record(request)));
  context.on('requestfailed', (request) => pending.push(record(request)));
  return {
    settled: async () => (await Promise.all(pending)).filter((response) => response !== null),
  };
}
