/** The value below which `q` of the sorted values fall (linear interpolation). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
}

export const median = (values: readonly number[]) => quantile(values, 0.5);

/** Least-squares slope of log10(y) against log10(x): 1 is linear, 2 quadratic. */
export function logLogSlope(points: readonly { x: number; y: number }[]): number {
  const logs = points.filter((p) => p.x > 0 && p.y > 0).map((p) => ({ x: Math.log10(p.x), y: Math.log10(p.y) }));
  if (logs.length < 2) return NaN;
  const mx = logs.reduce((s, p) => s + p.x, 0) / logs.length;
  const my = logs.reduce((s, p) => s + p.y, 0) / logs.length;
  const sxy = logs.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const sxx = logs.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return sxy / sxx;
}

/** Least-squares slope of y against x. */
export function linearSlope(points: readonly { x: number; y: number }[]): number {
  if (points.length < 2) return NaN;
  const mx = points.reduce((s, p) => s + p.x, 0) / points.length;
  const my = points.reduce((s, p) => s + p.y, 0) / points.length;
  const sxy = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return sxy / sxx;
}

/** Rounds to `digits` significant digits, so the JSON holds no false precision. */
export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value) || value === 0) return value;
  const scale = 10 ** (digits - 1 - Math.floor(Math.log10(Math.abs(value))));
  return Math.round(value * scale) / scale;
}
