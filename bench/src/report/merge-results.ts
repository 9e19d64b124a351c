import type { BenchResults, SuiteRun } from './results';

type Measured = Omit<BenchResults, 'goals'>;

/**
 * `--merge`: the figures of a run of some suites put into the results of an earlier run, so that a
 * suite can be measured again (new bundle variants, say) without a full run, which takes minutes and
 * would move every other figure with the machine's load. The header (command, date, machine, load,
 * versions) stays the earlier run's, and each merged suite records the run it comes from, which its
 * section names; the goals are judged again by the caller. Only suites whose section can name their
 * own run merge (bundle, round trips, DPoP), and only from the same machine, Node and package versions, so
 * that the sections stay comparable; ngx-token-refresh's own commit may differ (the section says it).
 */
export function mergeResults(previous: BenchResults, current: Measured): Measured {
  const refuse = (why: string) => new Error(`bench --merge: ${why}`);
  if (current.happyPath || current.burst || current.soak) {
    throw refuse('only the bundle, round-trips and dpop suites can be merged (--only=bundle,round-trips,dpop)');
  }
  if (!current.bundle && !current.roundTrips && !current.dpop) throw refuse('nothing was measured');
  if (previous.mode !== current.mode) throw refuse(`the results to merge into are of a ${previous.mode} run`);
  const machine = (m: BenchResults['machine']) => `${m.cpu}, ${m.cores} cores, Node ${m.node}`;
  if (machine(previous.machine) !== machine(current.machine)) {
    throw refuse(`the earlier run was on ${machine(previous.machine)}, this one on ${machine(current.machine)}`);
  }
  const differing = Object.entries(current.versions).filter(
    ([name, version]) =>
      name !== 'ngx-token-refresh' && name in previous.versions && previous.versions[name] !== version,
  );
  if (differing.length) {
    throw refuse(
      `versions differ from the earlier run (${differing.map(([name, v]) => `${name} ${previous.versions[name]} → ${v}`).join(', ')}): run everything`,
    );
  }
  const run: SuiteRun = {
    command: current.command,
    date: current.date,
    library: current.versions['ngx-token-refresh'] ?? 'unknown',
  };
  return {
    // Its goals too, which the caller judges again and replaces.
    ...previous,
    // Packages this run measures that the earlier one did not (a new contender's).
    versions: { ...current.versions, ...previous.versions },
    roundTrips: current.roundTrips ? { ...current.roundTrips, run } : previous.roundTrips,
    bundle: current.bundle ? { ...current.bundle, run } : previous.bundle,
    dpop: current.dpop ? { ...current.dpop, run } : (previous.dpop ?? null),
  };
}
