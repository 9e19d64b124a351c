import * as lib from 'ngx-token-refresh';

import { type DPoPSubject, type DPoPSubjectId, startDPoPSubject } from '../../src/measure/dpop-rounds';

// The DPoP suite's page (bench/src/suites/dpop-browser.ts opens it in Chromium): the same measurements as
// the Node workers (dpop-rounds.ts) with the library as a production build compiles it, the page's own
// document, and real IndexedDB for withDPoP()'s key. One subject per page; Node asks for the rounds.

let subject: DPoPSubject | null = null;

const bench = {
  start: async (id: DPoPSubjectId) => {
    subject = await startDPoPSubject(id, lib, document);
    return subject.ready;
  },
  round: (parallel: number, ms: number) => {
    if (!subject) throw new Error('bench: start() first');
    return subject.round(parallel, ms);
  },
};

(globalThis as { dpopBench?: typeof bench }).dpopBench = bench;
