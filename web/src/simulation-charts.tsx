/**
 * A simulation's charts, drawn as plain SVG from the result's numbers (no chart library: the card
 * ships as one small file): a histogram per output with its mean and percentiles marked, and a
 * tornado chart of the inputs' rank correlations. Each chart has a title and a description in
 * words for screen readers, and each bar a hover title.
 */
import { useId } from 'react';
import { niceTicks, useWidth } from './chart';
import { plainNumber, tickValue, type NumberFormat } from './format';
import { formatNumber, percentileName, type OutputSummary } from './simulation-model';

interface Marker {
  name: string;
  label: string;
  value: number;
  kind: 'mean' | 'percentile';
}

/** The mean and each percentile the result holds, in the order of their values. */
function markersOf(s: OutputSummary): Marker[] {
  const out: Marker[] = [];
  if (s.mean !== null) out.push({ name: 'mean', label: 'mean', value: s.mean, kind: 'mean' });
  for (const [p, v] of Object.entries(s.percentiles))
    if (v !== null) out.push({ name: `p${p}`, label: `p${p}`, value: v, kind: 'percentile' });
  return out.sort((a, b) => a.value - b.value);
}

/** One sentence saying what the histogram shows, for its description. */
function histogramText(label: string, s: OutputSummary, how: NumberFormat): string {
  const f = (v: number | null): string => formatNumber(v, how);
  const { edges, counts, sampled } = s.histogram;
  const top = counts.reduce((best, c, i) => (c > counts[best]! ? i : best), 0);
  const pct = Object.entries(s.percentiles)
    .map(([p, v]) => `${percentileName(p)} ${f(v)}`)
    .join(', ');
  const busiest =
    sampled > 0
      ? ` The most runs (${plainNumber(counts[top]!)}) fall between ${f(edges[top]!)} and ${f(edges[top + 1] ?? edges[top]!)}.`
      : '';
  return `${label} over ${plainNumber(sampled)} runs: from ${f(s.min)} to ${f(s.max)}, mean ${f(s.mean)}${pct ? `, ${pct}` : ''}.${busiest}`;
}

/** Where a value (x) and a count of runs (y) go in a histogram of `width` pixels. */
function histogramGeometry(summary: OutputSummary, width: number) {
  const { edges, counts } = summary.histogram;
  const lo = edges[0] ?? 0;
  const hi = edges.at(-1) ?? lo;
  const most = Math.max(1, ...counts);
  const yTicks = niceTicks(0, most, 4);
  const yTop = Math.max(most, yTicks.at(-1) ?? most);
  const pad = { left: 12 + 7 * String(yTop).length + 16, right: 14, top: 34, bottom: 44 };
  const height = 240;
  const w = Math.max(40, width - pad.left - pad.right);
  const h = height - pad.top - pad.bottom;
  const span = hi - lo;
  return {
    edges,
    counts,
    lo,
    hi,
    span,
    yTicks,
    pad,
    height,
    w,
    h,
    x: (v: number): number => pad.left + (span > 0 ? ((v - lo) / span) * w : w / 2),
    y: (n: number): number => pad.top + h - (n / yTop) * h,
    xTicks:
      span > 0 ? niceTicks(lo, hi, Math.max(2, Math.floor(w / 90))).filter((t) => t >= lo && t <= hi) : [lo],
  };
}
type HistogramGeometry = ReturnType<typeof histogramGeometry>;

/** One bar per bin, its hover title naming the bin and its count of runs. */
function HistogramBars({ g, f }: { g: HistogramGeometry; f: (v: number | null) => string }) {
  return (
    <>
      {g.counts.map((c, i) => {
        const from = g.edges[i] ?? g.lo;
        const to = g.edges[i + 1] ?? g.hi;
        const x0 = g.span > 0 ? g.x(from) : g.pad.left;
        const x1 = g.span > 0 ? g.x(to) : g.pad.left + g.w;
        return (
          <rect
            key={i}
            className="sim-bar"
            data-count={c}
            x={x0 + 0.5}
            width={Math.max(1, x1 - x0 - 1)}
            y={g.y(c)}
            height={g.y(0) - g.y(c)}
          >
            <title>{`${f(from)} to ${f(to)}: ${plainNumber(c)} runs`}</title>
          </rect>
        );
      })}
    </>
  );
}

/** The mean and percentile lines with their labels. */
function HistogramMarkers({
  g,
  markers,
  f,
}: {
  g: HistogramGeometry;
  markers: Marker[];
  f: (v: number | null) => string;
}) {
  return (
    <>
      {markers.map((m, i) => (
        <g key={m.name} className={`sim-marker ${m.kind}`} data-marker={m.name} data-value={m.value}>
          <line x1={g.x(m.value)} x2={g.x(m.value)} y1={g.pad.top - 4} y2={g.y(0)} />
          {/* labels alternate between two rows so close markers do not overwrite each other */}
          <text x={g.x(m.value)} y={i % 2 === 0 ? g.pad.top - 8 : g.pad.top - 21} textAnchor="middle">
            {m.label}
          </text>
          <title>{`${m.kind === 'mean' ? 'Mean' : percentileName(m.name.slice(1))}: ${f(m.value)}`}</title>
        </g>
      ))}
    </>
  );
}

export function Histogram({
  path,
  label,
  summary,
  how,
}: {
  path: string;
  label: string;
  summary: OutputSummary;
  how: NumberFormat;
}) {
  const [ref, width] = useWidth(600);
  const id = useId();
  const g = histogramGeometry(summary, width);
  const f = (v: number | null): string => formatNumber(v, how);
  return (
    <div ref={ref} className="chart-box sim-histogram" data-output={path}>
      <svg width={width} height={g.height} className="plot" role="img" aria-labelledby={`${id}-t ${id}-d`}>
        <title id={`${id}-t`}>{`Histogram of ${label}`}</title>
        <desc id={`${id}-d`}>{histogramText(label, summary, how)}</desc>
        {g.yTicks.map((t) => (
          <g key={t} className="tick y">
            <line x1={g.pad.left} x2={g.pad.left + g.w} y1={g.y(t)} y2={g.y(t)} />
            <text x={g.pad.left - 6} y={g.y(t)} dy="0.32em" textAnchor="end">
              {plainNumber(t)}
            </text>
          </g>
        ))}
        <HistogramBars g={g} f={f} />
        <line className="axis" x1={g.pad.left} x2={g.pad.left + g.w} y1={g.y(0)} y2={g.y(0)} />
        {g.xTicks.map((t) => (
          <text key={t} className="tick x" x={g.x(t)} y={g.y(0) + 16} textAnchor="middle">
            {tickValue(t, how)}
          </text>
        ))}
        <HistogramMarkers g={g} markers={markersOf(summary)} f={f} />
        <text className="axis-title" x={g.pad.left + g.w / 2} y={g.height - 6} textAnchor="middle">
          {label}
        </text>
        <text
          className="axis-title"
          transform={`translate(12,${g.pad.top + g.h / 2}) rotate(-90)`}
          textAnchor="middle"
        >
          Runs
        </text>
      </svg>
    </div>
  );
}

export interface TornadoRow {
  path: string;
  label: string;
  rho: number | null;
}

/** Strongest first; inputs with no correlation (a constant input) last. */
export function tornadoOrder(rows: TornadoRow[]): TornadoRow[] {
  return [...rows].sort((a, b) => Math.abs(b.rho ?? -1) - Math.abs(a.rho ?? -1));
}

const rhoText = (rho: number | null): string => (rho === null ? 'none' : rho.toFixed(2));

export function Tornado({ output, rows }: { output: string; rows: TornadoRow[] }) {
  const [ref, width] = useWidth(600);
  const id = useId();
  const ordered = tornadoOrder(rows);
  const labelW = Math.min(
    Math.floor(width * 0.4),
    16 + 7 * Math.max(4, ...ordered.map((r) => r.label.length)),
  );
  const pad = { left: labelW, right: 44, top: 8, bottom: 40 };
  const rowH = 26;
  const height = pad.top + rowH * ordered.length + pad.bottom;
  const w = Math.max(60, width - pad.left - pad.right);
  const mid = pad.left + w / 2;
  const x = (rho: number): number => mid + (rho * w) / 2;
  const words = ordered
    .map((r) =>
      r.rho === null
        ? `${r.label}: no correlation`
        : `${r.label} ${rhoText(r.rho)} (${output} ${r.rho >= 0 ? 'rises' : 'falls'} as it rises)`,
    )
    .join('; ');
  return (
    <div ref={ref} className="chart-box sim-tornado" data-output={output}>
      <svg width={width} height={height} className="plot" role="img" aria-labelledby={`${id}-t ${id}-d`}>
        <title id={`${id}-t`}>{`What drives ${output}`}</title>
        <desc
          id={`${id}-d`}
        >{`Rank correlation of each input with ${output}, strongest first: ${words}.`}</desc>
        {[-1, -0.5, 0, 0.5, 1].map((t) => (
          <g key={t} className="tick x">
            <line x1={x(t)} x2={x(t)} y1={pad.top} y2={pad.top + rowH * ordered.length} />
            <text x={x(t)} y={pad.top + rowH * ordered.length + 14} textAnchor="middle">
              {t === 0 ? '0' : t.toFixed(1)}
            </text>
          </g>
        ))}
        {ordered.map((r, i) => {
          const rho = r.rho ?? 0;
          const cy = pad.top + rowH * i + rowH / 2;
          return (
            <g key={r.path} className="sim-driver" data-input={r.path} data-rho={r.rho ?? ''}>
              <text x={pad.left - 8} y={cy} dy="0.32em" textAnchor="end">
                {r.label}
              </text>
              <rect
                className={`sim-bar ${rho < 0 ? 'negative' : 'positive'}`}
                x={Math.min(x(rho), mid)}
                width={Math.max(1, Math.abs(x(rho) - mid))}
                y={cy - 8}
                height={16}
              >
                <title>{`${r.label}: rank correlation ${rhoText(r.rho)}`}</title>
              </rect>
              {/* the figure sits across the centre line from its bar, so it never leaves the chart */}
              <text
                className="value"
                x={rho < 0 ? mid + 4 : mid - 4}
                y={cy}
                dy="0.32em"
                textAnchor={rho < 0 ? 'start' : 'end'}
              >
                {rhoText(r.rho)}
              </text>
            </g>
          );
        })}
        <text className="axis-title" x={mid} y={height - 6} textAnchor="middle">
          Rank correlation (left: lowers it, right: raises it)
        </text>
      </svg>
    </div>
  );
}
