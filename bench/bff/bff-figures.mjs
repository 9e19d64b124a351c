// The figures of bench/BFF-RESULTS.md that a README may quote, read from the file's text. `npm run
// bench:bff` checks them on the file it has just written; the READMEs' figures check
// (projects/ngx-token-refresh/readme/readme-figures.spec-helper.ts) can import them as they are
// (bff-figures.d.mts gives TypeScript their type).

/**
 * Every figure of `text` (the contents of bench/BFF-RESULTS.md) by key, as a README would write it:
 *
 * - `bff.overhead.<store>.reqs<C>`: throughput through the BFF over direct calls at C connections
 *   (the median of the rounds' ratios), `0.45x`; `<store>` is `memory` or `postgres`, C is 1 or 10;
 * - `bff.overhead.<store>.p50Ratio<C>`: median latency through the BFF over direct, `2.10x`;
 * - `bff.overhead.<store>.added<C>`: what the BFF adds to a call's median latency, `0.31 ms`;
 * - `bff.overhead.<store>.cpu<C>`: the BFF's CPU time per call, `296 µs`;
 * - `bff.overhead.<store>.bareReqs<C>`, `.bareAdded<C>`, `.bareCpu<C>`: the same of the bare `fetch` proxy,
 *   the floor of any proxy built on `fetch`;
 * - `bff.grants.perExpiry`: refresh grants per session per expiry over every row, `1.00`;
 * - `bff.grants.expiries`, `bff.grants.calls`, `bff.grants.failed`, `bff.grants.reuse`: the totals;
 * - `bff.grants.sessions`: the session counts, `10 and 50`; `bff.grants.rate`: `10 calls/s`;
 *   `bff.grants.ttl`: the access tokens' lifetime, `6 s`.
 *
 * `postgres: false` leaves out the PostgreSQL figures (a run without DATABASE_URL). Throws when a
 * figure is missing.
 */
export function bffFigures(text, { postgres = true } = {}) {
  const overhead = section(text, 'BFF / direct');
  const grants = section(text, 'Refresh grants per expiry under load');
  const figures = [];
  for (const [store, name, label] of [
    ['memory', 'memory', 'memory store'],
    ...(postgres ? [['postgres', 'PostgreSQL', 'PostgreSQL store']] : []),
  ]) {
    const detail = section(text, label);
    for (const connections of connectionCounts(overhead, name)) {
      /** The proxy's CPU per call in the store's own table: `296 µs`. */
      const cpu = (path) => `${pathCell(detail, connections, path, 6)} µs`;
      const row = `${name}, ${connections} connection${connections === '1' ? '' : 's'}`;
      figures.push(
        [`bff.overhead.${store}.reqs${connections}`, match(cell(overhead, row, 1), /\*\*([\d.]+x)\*\*/)],
        [`bff.overhead.${store}.p50Ratio${connections}`, cell(overhead, row, 2)],
        [`bff.overhead.${store}.added${connections}`, cell(overhead, row, 3)],
        [`bff.overhead.${store}.bareReqs${connections}`, match(cell(overhead, row, 4), /\*\*([\d.]+x)\*\*/)],
        [`bff.overhead.${store}.bareAdded${connections}`, cell(overhead, row, 5)],
        [`bff.overhead.${store}.cpu${connections}`, cpu('through the BFF')],
        [`bff.overhead.${store}.bareCpu${connections}`, cpu('through a bare fetch proxy')],
      );
    }
  }
  const total = match(
    grants,
    /All rows: \*\*([\d.]+)\*\* refresh grants per session per expiry \((\d+) grants, (\d+) expiries\), \*\*(\d+)\*\* failed calls of (\d+), \*\*(\d+)\*\* reuse detected/,
    [1, 3, 4, 5, 6],
  );
  const sessions = [...grants.matchAll(/^\| [^|]+, (\d+) sessions\s*\|/gm)].map((found) => found[1]);
  if (sessions.length === 0) fail('no row of the grants table');
  figures.push(
    ['bff.grants.perExpiry', total[0]],
    ['bff.grants.expiries', grouped(total[1])],
    ['bff.grants.failed', grouped(total[2])],
    ['bff.grants.calls', grouped(total[3])],
    ['bff.grants.reuse', grouped(total[4])],
    ['bff.grants.sessions', list([...new Set(sessions)])],
    ['bff.grants.rate', `${match(grants, /through the BFF (\d+) times a second/)} calls/s`],
    ['bff.grants.ttl', `${match(grants, /access tokens live (\d+) s/)} s`],
  );
  return figures;
}

/** The text under `## heading` or `### heading`, up to the next heading of any level. */
function section(text, heading) {
  const found = new RegExp(`^#{2,3} ${escape(heading)}\\n`, 'm').exec(text);
  if (found === null) fail(`no section "${heading}"`);
  const rest = text.slice(found.index + found[0].length);
  const end = rest.search(/^#{1,3} /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** The connection counts of `store`'s rows in the ratio table: `memory, 10 connections` → `10`. */
function connectionCounts(text, store) {
  const counts = [...text.matchAll(new RegExp(`^\\| ${escape(store)}, (\\d+) connections? `, 'gm'))].map((m) => m[1]);
  if (counts.length === 0) fail(`no overhead row of the ${store} store`);
  return counts;
}

/** Cell `column` of the row of `connections` and `path` in a store's table of the three paths. */
function pathCell(text, connections, path, column) {
  const row = text
    .split('\n')
    .map((line) => line.split('|').map((part) => part.trim()))
    .find((cells) => cells[1] === connections && cells[2] === path);
  return row?.[column + 1] ?? fail(`no row of ${path} at ${connections} connections`);
}

/** Cell `column` (0 is the first) of the table row whose first cell is `first`. */
function cell(text, first, column) {
  const row = text
    .split('\n')
    .map((line) => line.split('|').map((part) => part.trim()))
    .find((cells) => cells[1] === first);
  return row?.[column + 1] ?? fail(`no table row "${first}"`);
}

function match(text, pattern, groups = [1]) {
  const found = pattern.exec(text) ?? fail(`nothing matches ${pattern}`);
  return groups.length === 1 ? found[groups[0]] : groups.map((group) => found[group]);
}

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

const grouped = (text) => Number(text).toLocaleString('en-US');

/** `10 and 50`, `10, 50 and 100`. */
const list = (items) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

function fail(message) {
  throw new Error(`bench/BFF-RESULTS.md figures: ${message}`);
}
