/** The value at `fraction` (0.5: the median) of `sorted`, ascending: the nearest rank, no interpolation. */
export function percentile(sorted, fraction) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] : NaN;
}
