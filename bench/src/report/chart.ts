import type { BurstResults } from './results';

/** A fixed colour per contender, so charts of different runs compare at a glance. */
export const COLORS: Readonly<Record<string, string>> = {
  'behavior-subject': '#d95f02',
  'ngx-auth': '#7570b3',
  'ngx-token-refresh': '#1b9e77',
};

const WIDTH = 760;
const HEIGHT = 440;
const PLOT = { left: 70, right: 230, top: 40, bottom: 60 };

const n1 = (value: number) => value.toFixed(1);
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Burst settle time against N, both axes logarithmic, one line per contender, plus a dashed
 * "linear" guide through the first point of the contender named `reference`. No dependency: the
 * SVG is written by hand, with rounded coordinates so the file only changes when the figures do.
 */
export function burstChart(burst: BurstResults, labels: Readonly<Record<string, string>>, reference: string): string {
  const sizes = burst.sizes;
  const points = burst.cells.filter((c) => c.settleMs !== null && c.settleMs > 0);
  const times = points.map((c) => c.settleMs as number);
  const yMin = 10 ** Math.floor(Math.log10(Math.min(...times, 1)));
  const yMax = 10 ** Math.ceil(Math.log10(Math.max(...times, 10)));
  const xMin = Math.min(...sizes);
  const xMax = Math.max(...sizes);
  const plotWidth = WIDTH - PLOT.left - PLOT.right;
  const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
  const x = (n: number) =>
    PLOT.left +
    (xMax === xMin ? 0 : ((Math.log10(n) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin))) * plotWidth);
  const y = (ms: number) =>
    PLOT.top + plotHeight - ((Math.log10(ms) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * plotHeight;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${PLOT.left}" y="22" font-size="15" font-weight="bold">Burst after expiry: CPU time from the refresh answer until all N requests settled</text>`,
  );
  for (let decade = yMin; decade <= yMax; decade *= 10) {
    const yy = n1(y(decade));
    out.push(
      `<line x1="${PLOT.left}" y1="${yy}" x2="${WIDTH - PLOT.right}" y2="${yy}" stroke="#e0e0e0"/>`,
      `<text x="${PLOT.left - 8}" y="${yy}" text-anchor="end" dominant-baseline="middle">${formatMs(decade)}</text>`,
    );
  }
  for (const n of sizes) {
    const xx = n1(x(n));
    out.push(
      `<line x1="${xx}" y1="${PLOT.top}" x2="${xx}" y2="${HEIGHT - PLOT.bottom}" stroke="#e0e0e0"/>`,
      `<text x="${xx}" y="${HEIGHT - PLOT.bottom + 18}" text-anchor="middle">${n.toLocaleString('en-US')}</text>`,
    );
  }
  out.push(
    `<rect x="${PLOT.left}" y="${PLOT.top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#888888"/>`,
    `<text x="${PLOT.left + plotWidth / 2}" y="${HEIGHT - 18}" text-anchor="middle">N (concurrent requests failing with 401), log scale</text>`,
    `<text x="18" y="${PLOT.top + plotHeight / 2}" text-anchor="middle" transform="rotate(-90 18 ${PLOT.top + plotHeight / 2})">settle time (CPU), log scale</text>`,
  );

  const first = points.find((c) => c.contender === reference);
  if (first) {
    const last = sizes[sizes.length - 1];
    const ms = ((first.settleMs as number) * last) / first.n;
    out.push(
      `<line x1="${n1(x(first.n))}" y1="${n1(y(first.settleMs as number))}" x2="${n1(x(last))}" y2="${n1(y(Math.min(ms, yMax)))}" stroke="#999999" stroke-dasharray="4 4"/>`,
    );
  }

  const contenders = [...new Set(burst.cells.map((c) => c.contender))];
  contenders.forEach((contender, index) => {
    const color = COLORS[contender] ?? '#333333';
    const own = points.filter((c) => c.contender === contender).sort((a, b) => a.n - b.n);
    if (own.length > 1) {
      const path = own.map((c) => `${n1(x(c.n))},${n1(y(c.settleMs as number))}`).join(' ');
      out.push(`<polyline points="${path}" fill="none" stroke="${color}" stroke-width="2"/>`);
    }
    for (const c of own) {
      out.push(`<circle cx="${n1(x(c.n))}" cy="${n1(y(c.settleMs as number))}" r="3.5" fill="${color}"/>`);
    }
    for (const c of burst.cells.filter((cell) => cell.contender === contender && cell.status !== 'ok')) {
      if (c.settleMs !== null && c.status === 'multiple-refresh') continue;
      const xx = x(c.n);
      const yy = PLOT.top + 10;
      out.push(
        `<path d="M${n1(xx - 5)},${n1(yy - 5)} L${n1(xx + 5)},${n1(yy + 5)} M${n1(xx - 5)},${n1(yy + 5)} L${n1(xx + 5)},${n1(yy - 5)}" stroke="${color}" stroke-width="2"/>`,
      );
    }
    const ly = PLOT.top + 10 + index * 22;
    const lx = WIDTH - PLOT.right + 16;
    out.push(
      `<line x1="${lx}" y1="${ly}" x2="${lx + 22}" y2="${ly}" stroke="${color}" stroke-width="2"/>`,
      `<circle cx="${lx + 11}" cy="${ly}" r="3.5" fill="${color}"/>`,
      `<text x="${lx + 30}" y="${ly}" dominant-baseline="middle">${escape(labels[contender] ?? contender)}</text>`,
    );
  });
  const ly = PLOT.top + 10 + contenders.length * 22;
  const lx = WIDTH - PLOT.right + 16;
  out.push(
    `<line x1="${lx}" y1="${ly}" x2="${lx + 22}" y2="${ly}" stroke="#999999" stroke-dasharray="4 4"/>`,
    `<text x="${lx + 30}" y="${ly}" dominant-baseline="middle">linear from ${escape(labels[reference] ?? reference)}</text>`,
    `<text x="${lx}" y="${ly + 22}" dominant-baseline="middle">× at the top: hang or timeout</text>`,
    '</svg>',
  );
  return out.join('\n') + '\n';
}

function formatMs(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toLocaleString('en-US')} s`;
  if (ms >= 1) return `${ms} ms`;
  return `${Math.round(ms * 1000)} µs`;
}
