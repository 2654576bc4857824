/**
 * dataChart / sparkline drawn as plain SVG: bar, line, area or pie over the bound array of objects.
 * Hand-drawn rather than a chart library: the card ships as one file, and recharts alone was about
 * half of its 1.2 MB. Axis ticks and hover titles use the series' number format.
 */
import { useEffect, useRef, useState } from 'react';
import { formatOf, formatValue, tickValue, type NumberFormat } from './format';
import type { CardPayload, Component, Json } from './model';

const PALETTE = ['#4f6bed', '#e8833a', '#2e9d6b', '#c2417a', '#8a63d2', '#b59b1d'];

interface Series {
  field: string;
  label: string;
  color: string;
}
type Row = { [key: string]: Json };

/** Round tick values covering [lo, hi] (about `count` of them), always including 0 when in range. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = Math.floor(lo / step) * step; v <= hi + step / 2; v += step) out.push(Number(v.toFixed(10)));
  return out;
}

/** The element's width, followed as it changes (the card is as wide as its host makes it). */
export function useWidth(initial = 560): [React.RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement | null>(null);
  const [width, setWidth] = useState(initial);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(([entry]) => {
      const w = Math.floor(entry?.contentRect.width ?? 0);
      if (w > 0) setWidth(w);
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

function seriesOf(c: Component, first: Row, x: string | undefined): Series[] {
  const declared = Array.isArray(c.chartSeries)
    ? (c.chartSeries as { field?: unknown; label?: unknown; color?: unknown }[])
    : [];
  const picked =
    declared.length > 0
      ? declared.map((s) => ({
          field: String(s.field),
          label: typeof s.label === 'string' ? s.label : String(s.field),
          color: s.color,
        }))
      : Object.keys(first)
          .filter((k) => k !== x && typeof first[k] === 'number')
          .map((field) => ({ field, label: field, color: undefined }));
  return picked.map((s, i) => ({
    ...s,
    color: typeof s.color === 'string' ? s.color : PALETTE[i % PALETTE.length]!,
  }));
}

function Pie({
  data,
  s,
  x,
  how,
  size,
}: {
  data: Row[];
  s: Series;
  x: string;
  how: NumberFormat;
  size: number;
}) {
  const values = data.map((r) => Math.max(0, Number(r[s.field]) || 0));
  const total = values.reduce((a, b) => a + b, 0) || 1;
  const r = size / 2 - 4;
  let angle = -Math.PI / 2;
  return (
    <g transform={`translate(${size / 2},${size / 2})`}>
      {values.map((v, i) => {
        const start = angle;
        angle += (v / total) * Math.PI * 2;
        const large = angle - start > Math.PI ? 1 : 0;
        const [x0, y0, x1, y1] = [Math.cos(start), Math.sin(start), Math.cos(angle), Math.sin(angle)].map(
          (t) => t * r,
        );
        const d =
          v >= total
            ? `M ${-r} 0 A ${r} ${r} 0 1 1 ${r} 0 A ${r} ${r} 0 1 1 ${-r} 0 Z`
            : `M 0 0 L ${x0} ${y0} A ${r} ${r} 0 ${large} 1 ${x1} ${y1} Z`;
        return (
          <path key={i} className="slice" d={d} fill={PALETTE[i % PALETTE.length]}>
            <title>{`${String(data[i]![x])}: ${formatValue(v, how.format, how.currency)}`}</title>
          </path>
        );
      })}
    </g>
  );
}

export function Chart({ c, card }: { c: Component; card: CardPayload }) {
  const [ref, width] = useWidth();
  const data = (Array.isArray(c.value) ? c.value : []).filter(
    (r): r is Row => r !== null && typeof r === 'object' && !Array.isArray(r),
  );
  const first = data[0] ?? {};
  const x = typeof c.chartX === 'string' ? c.chartX : Object.keys(first)[0];
  const series = seriesOf(c, first, x);
  const spark = c.type === 'sparkline';
  const kind = typeof c.chartType === 'string' ? c.chartType : spark ? 'line' : 'bar';
  const how: NumberFormat =
    c.format !== undefined
      ? { format: c.format, currency: c.currency }
      : c.bind && series[0]
        ? formatOf(card, `${c.bind}[*].${series[0].field}`)
        : {};
  const xHow: NumberFormat = c.bind && x ? formatOf(card, `${c.bind}[*].${x}`) : {};
  const summary = `${c.label ?? 'Chart'}: ${series.map((s) => s.label).join(', ')} by ${x ?? 'row'}, ${data.length} points`;
  const height = spark ? 60 : 240;
  return (
    <figure className="chart" data-component={c.id} role="img" aria-label={summary}>
      {c.label && <figcaption>{c.label}</figcaption>}
      <div ref={ref} className="chart-box">
        {kind === 'pie' && series[0] && x ? (
          <svg width={height} height={height} viewBox={`0 0 ${height} ${height}`}>
            <Pie data={data} s={series[0]} x={x} how={how} size={height} />
          </svg>
        ) : (
          <Cartesian
            data={data}
            series={series}
            x={x}
            kind={kind}
            how={how}
            xHow={xHow}
            width={width}
            height={height}
            spark={spark}
          />
        )}
      </div>
      {!spark && (kind === 'pie' || series.length > 1) && (
        <ul className="legend">
          {(kind === 'pie' && x
            ? data.map((r, i) => ({ label: String(r[x]), color: PALETTE[i % PALETTE.length]! }))
            : series
          ).map((s, i) => (
            <li key={i}>
              <span className="swatch" style={{ background: s.color }} />
              {s.label}
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}

interface CartesianProps {
  data: Row[];
  series: Series[];
  x: string | undefined;
  kind: string;
  how: NumberFormat;
  /** The x field's own format (a table column's, say); years show as written either way. */
  xHow: NumberFormat;
  width: number;
  height: number;
  spark: boolean;
}

/** Scales and labels of a cartesian plot: where a value, a row and a bar go. */
function geometry({ data, series, x, how, xHow, width, height, spark }: CartesianProps) {
  const values = data.flatMap((r) => series.map((s) => Number(r[s.field])).filter(Number.isFinite));
  const lo = Math.min(0, ...values);
  const hi = Math.max(0, ...values);
  const ticks = spark ? [lo, hi] : niceTicks(lo, hi);
  const top = Math.max(hi, ticks.at(-1) ?? hi);
  const bottom = Math.min(lo, ticks[0] ?? lo);
  const tick = (v: number): string => tickValue(v, how);
  const left = spark ? 2 : Math.min(120, 12 + 7 * Math.max(...ticks.map((t) => tick(t).length)));
  const pad = { left, right: spark ? 2 : 12, top: spark ? 2 : 10, bottom: spark ? 2 : 26 };
  const w = Math.max(10, width - pad.left - pad.right);
  const h = height - pad.top - pad.bottom;
  const band = w / Math.max(1, data.length);
  return {
    ticks,
    tick,
    pad,
    w,
    label: (v: number): string => formatValue(v, how.format, how.currency),
    y: (v: number): number => pad.top + h - ((v - bottom) / (top - bottom || 1)) * h,
    cx: (i: number): number => pad.left + band * (i + 0.5),
    barW: (band * 0.7) / Math.max(1, series.length),
    xText: (r: Row, i: number): string =>
      x === undefined
        ? String(i + 1)
        : typeof r[x] === 'number'
          ? formatValue(r[x], xHow.format, xHow.currency, x)
          : String(r[x]),
    /** Label every n-th row so x labels do not overlap. */
    every: Math.max(1, Math.ceil((data.length * 60) / w)),
  };
}
type Geometry = ReturnType<typeof geometry>;

function Axes({ g, data, height }: { g: Geometry; data: Row[]; height: number }) {
  return (
    <>
      {g.ticks.map((t) => (
        <g key={t} className="tick y">
          <line x1={g.pad.left} x2={g.pad.left + g.w} y1={g.y(t)} y2={g.y(t)} />
          <text x={g.pad.left - 6} y={g.y(t)} dy="0.32em" textAnchor="end">
            {g.tick(t)}
          </text>
        </g>
      ))}
      {data.map((r, i) =>
        i % g.every === 0 ? (
          <text key={i} className="tick x" x={g.cx(i)} y={height - 8} textAnchor="middle">
            {g.xText(r, i)}
          </text>
        ) : null,
      )}
    </>
  );
}

/** A line (or filled area) through one series, with a titled point per row unless a sparkline. */
function LineSeries({
  g,
  s,
  data,
  kind,
  spark,
}: {
  g: Geometry;
  s: Series;
  data: Row[];
  kind: string;
  spark: boolean;
}) {
  const pts = data.map((r, i) => [g.cx(i), g.y(Number(r[s.field]) || 0)] as const);
  const line = pts.map(([px, py], i) => `${i === 0 ? 'M' : 'L'}${px},${py}`).join(' ');
  return (
    <g className={`series ${kind}`}>
      {kind === 'area' && pts.length > 0 && (
        <path
          d={`${line} L${pts.at(-1)![0]},${g.y(0)} L${pts[0]![0]},${g.y(0)} Z`}
          fill={s.color}
          opacity={0.25}
        />
      )}
      <path d={line} fill="none" stroke={s.color} strokeWidth={2} />
      {!spark &&
        pts.map(([px, py], i) => (
          <circle key={i} cx={px} cy={py} r={3} fill={s.color}>
            <title>{`${s.label}, ${g.xText(data[i]!, i)}: ${g.label(Number(data[i]![s.field]))}`}</title>
          </circle>
        ))}
    </g>
  );
}

/** One bar per row for series `si` of `count`, side by side within the row's band. */
function BarSeries({
  g,
  s,
  si,
  count,
  data,
}: {
  g: Geometry;
  s: Series;
  si: number;
  count: number;
  data: Row[];
}) {
  return (
    <g className="series bar">
      {data.map((r, i) => {
        const v = Number(r[s.field]) || 0;
        const x0 = g.cx(i) - (g.barW * count) / 2 + g.barW * si;
        return (
          <rect
            key={i}
            className="bar"
            x={x0}
            width={Math.max(1, g.barW - 1)}
            y={Math.min(g.y(v), g.y(0))}
            height={Math.abs(g.y(v) - g.y(0))}
            fill={s.color}
          >
            <title>{`${s.label}, ${g.xText(r, i)}: ${g.label(v)}`}</title>
          </rect>
        );
      })}
    </g>
  );
}

function Cartesian(props: CartesianProps) {
  const { data, series, kind, width, height, spark } = props;
  const g = geometry(props);
  return (
    <svg width={width} height={height} className="plot">
      {!spark && <Axes g={g} data={data} height={height} />}
      {series.map((s, si) =>
        kind === 'line' || kind === 'area' ? (
          <LineSeries key={s.field} g={g} s={s} data={data} kind={kind} spark={spark} />
        ) : (
          <BarSeries key={s.field} g={g} s={s} si={si} count={series.length} data={data} />
        ),
      )}
    </svg>
  );
}
