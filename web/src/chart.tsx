/** dataChart / sparkline with recharts: bar, line, area or pie over the bound array of objects. */
import {
  Area,
  AreaChart,
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  Legend,
  Line,
  LineChart,
  Pie,
  PieChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { Component } from './model';

const PALETTE = ['#4f6bed', '#e8833a', '#2e9d6b', '#c2417a', '#8a63d2', '#b59b1d'];

export function Chart({ c }: { c: Component }) {
  const data = (Array.isArray(c.value) ? c.value : []).filter(
    (r): r is Record<string, never> => r !== null && typeof r === 'object' && !Array.isArray(r),
  );
  const first = data[0] ?? {};
  const x = typeof c.chartX === 'string' ? c.chartX : Object.keys(first)[0];
  const declared = Array.isArray(c.chartSeries)
    ? (c.chartSeries as { field?: unknown; label?: unknown; color?: unknown }[])
    : [];
  const series = (
    declared.length > 0
      ? declared.map((s) => ({
          field: String(s.field),
          label: typeof s.label === 'string' ? s.label : String(s.field),
          color: s.color,
        }))
      : Object.keys(first)
          .filter((k) => k !== x && typeof first[k] === 'number')
          .map((field) => ({ field, label: field, color: undefined }))
  ).map((s, i) => ({ ...s, color: typeof s.color === 'string' ? s.color : PALETTE[i % PALETTE.length]! }));
  const spark = c.type === 'sparkline';
  const height = spark ? 60 : 240;
  const kind = typeof c.chartType === 'string' ? c.chartType : spark ? 'line' : 'bar';
  const summary = `${c.label ?? 'Chart'}: ${series.map((s) => s.label).join(', ')} by ${x ?? 'row'}, ${data.length} points`;
  let chart;
  if (kind === 'pie') {
    const s = series[0];
    chart = (
      <PieChart>
        {s && (
          <Pie data={data} dataKey={s.field} nameKey={x} isAnimationActive={false} outerRadius="80%">
            {data.map((_, i) => (
              <Cell key={i} fill={PALETTE[i % PALETTE.length]} />
            ))}
          </Pie>
        )}
        <Tooltip />
        <Legend />
      </PieChart>
    );
  } else {
    const Chart = kind === 'line' ? LineChart : kind === 'area' ? AreaChart : BarChart;
    chart = (
      <Chart data={data}>
        {!spark && <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" />}
        {!spark && <XAxis dataKey={x} stroke="var(--muted)" />}
        {!spark && <YAxis stroke="var(--muted)" />}
        {!spark && <Tooltip />}
        {!spark && series.length > 1 && <Legend />}
        {series.map((s) =>
          kind === 'line' ? (
            <Line
              key={s.field}
              dataKey={s.field}
              name={s.label}
              stroke={s.color}
              dot={!spark}
              isAnimationActive={false}
            />
          ) : kind === 'area' ? (
            <Area
              key={s.field}
              dataKey={s.field}
              name={s.label}
              stroke={s.color}
              fill={s.color}
              isAnimationActive={false}
            />
          ) : (
            <Bar key={s.field} dataKey={s.field} name={s.label} fill={s.color} isAnimationActive={false} />
          ),
        )}
      </Chart>
    );
  }
  return (
    <figure className="chart" data-component={c.id} role="img" aria-label={summary}>
      {c.label && <figcaption>{c.label}</figcaption>}
      <ResponsiveContainer width="100%" height={height}>
        {chart}
      </ResponsiveContainer>
    </figure>
  );
}
