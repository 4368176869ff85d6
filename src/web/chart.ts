// A line chart drawn on the server as SVG: it needs no script, and the
// figures behind it are a table beside it (screen readers read that; the
// picture names itself and says what it shows in words).
import { html, type Html } from './html.ts';

const WIDTH = 640;
const HEIGHT = 200;
const PAD = { left: 64, right: 12, top: 12, bottom: 28 };

export interface ChartPoint {
  /** The x axis' label for it (a day). */
  label: string;
  value: number;
}

/** A line through the points, with the lowest and highest values and the first and last labels on its axes. */
export function lineChart(id: string, title: string, points: readonly ChartPoint[], format: (value: number) => string): Html {
  const values = points.map((p) => p.value);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low || 1;
  const x = (i: number) => PAD.left + (points.length === 1 ? 0 : (i / (points.length - 1)) * (WIDTH - PAD.left - PAD.right));
  const y = (v: number) => PAD.top + (1 - (v - low) / span) * (HEIGHT - PAD.top - PAD.bottom);
  const line = points.map((p, i) => `${x(i).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ');
  const first = points[0];
  const last = points[points.length - 1];
  const description =
    first === undefined || last === undefined
      ? 'No figures yet.'
      : `From ${format(first.value)} on ${first.label} to ${format(last.value)} on ${last.label}; lowest ${format(low)}, highest ${format(high)}.`;
  return html`<figure class="chart">
    <svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title ${id}-desc">
      <title id="${id}-title">${title}</title>
      <desc id="${id}-desc">${description}</desc>
      <line x1="${PAD.left}" y1="${HEIGHT - PAD.bottom}" x2="${WIDTH - PAD.right}" y2="${HEIGHT - PAD.bottom}" stroke="#5b6670" stroke-width="1"></line>
      <line x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${HEIGHT - PAD.bottom}" stroke="#5b6670" stroke-width="1"></line>
      <text x="${PAD.left - 6}" y="${PAD.top + 4}" text-anchor="end" font-size="11" fill="#1a2633">${format(high)}</text>
      <text x="${PAD.left - 6}" y="${HEIGHT - PAD.bottom}" text-anchor="end" font-size="11" fill="#1a2633">${format(low)}</text>
      ${first === undefined ? '' : html`<text x="${PAD.left}" y="${HEIGHT - 8}" font-size="11" fill="#1a2633">${first.label}</text>`}
      ${last === undefined || points.length < 2 ? '' : html`<text x="${WIDTH - PAD.right}" y="${HEIGHT - 8}" text-anchor="end" font-size="11" fill="#1a2633">${last.label}</text>`}
      <polyline points="${line}" fill="none" stroke="#0b5c55" stroke-width="2"></polyline>
    </svg>
    <figcaption>${description}</figcaption>
  </figure>`;
}
