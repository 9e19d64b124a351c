// A node:test reporter that keeps `npm test`'s output short: one line per top-level suite, every
// failure in full as it happens and again before the summary, and the summary last. The default
// reporter prints five lines per test (2,500 for this suite), which scrolled Jest's summary away.
//
//   node --test --test-reporter=./projects/reference-server/test/compact-reporter.mjs ...
//
// `--test-reporter=spec` (or tap) gives the full listing when it is wanted.
import { relative } from 'node:path';
import { inspect } from 'node:util';

const SUMMARY = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) /;

/** @param {AsyncIterable<{ type: string, data: any }>} source the run's events */
export default async function* compactReporter(source) {
  // Tests finished in each file since its last top-level test or suite ended: a file's events come
  // in order, innermost first, so these are the tests of the top-level suite that ends next.
  const testsByFile = new Map();
  const failures = [];
  const summary = [];
  for await (const { type, data } of source) {
    switch (type) {
      case 'test:pass':
      case 'test:fail': {
        const failed = type === 'test:fail';
        const isSuite = data.details?.type === 'suite';
        if (!isSuite && data.nesting > 0) testsByFile.set(data.file, (testsByFile.get(data.file) ?? 0) + 1);
        if (failed && !isSuite) {
          const report = describeFailure(data);
          failures.push(report);
          yield `${report}\n`;
        }
        if (data.nesting === 0) {
          const count = isSuite ? (testsByFile.get(data.file) ?? 0) : 1;
          testsByFile.delete(data.file);
          const seconds = ((data.details?.duration_ms ?? 0) / 1000).toFixed(1);
          yield `${failed ? '✖' : '✔'} ${data.name} (${count} ${count === 1 ? 'test' : 'tests'}, ${seconds} s)\n`;
        }
        break;
      }
      case 'test:diagnostic':
        if (data.nesting === 0 && SUMMARY.test(data.message)) summary.push(data.message);
        else yield `  ${data.message}\n`;
        break;
      case 'test:stderr':
        yield data.message;
        break;
    }
  }
  if (failures.length > 0) yield `\n${failures.length} failed:\n\n${failures.join('\n')}\n`;
  yield `\n${summary.map(formatSummaryLine).join(' · ')}\n`;
}

/** `duration_ms 235994.4` reads as `236 s`; the counts stay as node:test words them. */
function formatSummaryLine(line) {
  const [key, value] = line.split(' ');
  return key === 'duration_ms' ? `${Math.round(Number(value) / 1000)} s` : `${key} ${value}`;
}

function describeFailure(data) {
  const error = data.details?.error;
  // node:test wraps what the test threw in an ERR_TEST_FAILURE whose cause is the assertion.
  const thrown = error?.code === 'ERR_TEST_FAILURE' && error.cause !== undefined ? error.cause : error;
  const where = data.file ? ` (${relative(process.cwd(), data.file)}${data.line ? `:${data.line}` : ''})` : '';
  return `✖ ${data.name}${where}\n${inspect(thrown, { depth: 4 }).replace(/^/gm, '    ')}\n`;
}
