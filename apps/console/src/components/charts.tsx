import { type ReactNode, useId } from 'react';

export interface Series {
  readonly name: string;
  /** One value per label. */
  readonly values: readonly number[];
  /** A CSS class giving its colour: `series-1` … `series-4`, `series-success`, `series-failure`. */
  readonly tone: string;
}

const W = 640;
const H = 220;
const PAD = { top: 12, right: 12, bottom: 28, left: 48 };

function niceMax(max: number): number {
  if (max <= 0) return 1;
  const pow = 10 ** Math.floor(Math.log10(max));
  const step = [1, 2, 2.5, 5, 10].find((s) => s * pow >= max / 4) ?? 10;
  return Math.ceil(max / (step * pow)) * step * pow;
}

/** The chart's numbers as a table, for screen readers and for anyone who would rather read them. */
function ChartData({
  title,
  labels,
  series,
  format,
}: {
  title: string;
  labels: readonly string[];
  series: readonly Series[];
  format: (n: number) => string;
}): ReactNode {
  return (
    <details className="chart-data">
      <summary>Show the data</summary>
      <div className="table-wrap">
        <table>
          <caption className="sr-only">{title}</caption>
          <thead>
            <tr>
              <th scope="col">Period</th>
              {series.map((s) => (
                <th scope="col" key={s.name} className="num">
                  {s.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {labels.map((label, i) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                {series.map((s) => (
                  <td key={s.name} className="num">
                    {format(s.values[i] ?? 0)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

function Legend({ series }: { series: readonly Series[] }): ReactNode {
  return (
    <ul className="legend">
      {series.map((s) => (
        <li key={s.name}>
          <span className={`swatch ${s.tone}`} aria-hidden="true" />
          {s.name}
        </li>
      ))}
    </ul>
  );
}

function Axis({ max, format }: { max: number; format: (n: number) => string }): ReactNode {
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * max);
  const plotH = H - PAD.top - PAD.bottom;
  return (
    <g className="axis">
      {ticks.map((t) => {
        const y = PAD.top + plotH - (t / max) * plotH;
        return (
          <g key={t}>
            <line x1={PAD.left} x2={W - PAD.right} y1={y} y2={y} className="gridline" />
            <text x={PAD.left - 6} y={y + 4} textAnchor="end">
              {format(t)}
            </text>
          </g>
        );
      })}
    </g>
  );
}

/** Stacked bars per label (e.g. deliveries succeeded / failed per hour, payment volume per day). */
export function BarChart({
  title,
  labels,
  series,
  format = (n) => String(Math.round(n)),
}: {
  title: string;
  labels: readonly string[];
  series: readonly Series[];
  format?: (n: number) => string;
}): ReactNode {
  const id = useId();
  const totals = labels.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const band = labels.length ? plotW / labels.length : plotW;
  const barW = Math.max(2, band * 0.7);
  const every = Math.max(1, Math.ceil(labels.length / 8));
  return (
    <figure className="chart">
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-title`} preserveAspectRatio="none">
        <Axis max={max} format={format} />
        {labels.map((label, i) => {
          let y = PAD.top + plotH;
          const x = PAD.left + i * band + (band - barW) / 2;
          return (
            <g key={label}>
              {series.map((s) => {
                const h = ((s.values[i] ?? 0) / max) * plotH;
                y -= h;
                return h > 0 ? (
                  <rect key={s.name} x={x} y={y} width={barW} height={h} className={s.tone}>
                    <title>{`${label} · ${s.name}: ${format(s.values[i] ?? 0)}`}</title>
                  </rect>
                ) : null;
              })}
              {i % every === 0 ? (
                <text x={x + barW / 2} y={H - 8} textAnchor="middle" className="axis-label">
                  {label}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <Legend series={series} />
      <ChartData title={title} labels={labels} series={series} format={format} />
    </figure>
  );
}

/** Lines over labels (e.g. a table's query latency p50 / p95). */
export function LineChart({
  title,
  labels,
  series,
  format = (n) => String(Math.round(n)),
}: {
  title: string;
  labels: readonly string[];
  series: readonly Series[];
  format?: (n: number) => string;
}): ReactNode {
  const id = useId();
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values)));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i: number): number => PAD.left + (labels.length > 1 ? (i / (labels.length - 1)) * plotW : plotW / 2);
  const y = (v: number): number => PAD.top + plotH - (v / max) * plotH;
  const every = Math.max(1, Math.ceil(labels.length / 8));
  return (
    <figure className="chart">
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-title`} preserveAspectRatio="none">
        <Axis max={max} format={format} />
        {series.map((s) => (
          <g key={s.name} className={s.tone}>
            <polyline fill="none" className="line" points={s.values.map((v, i) => `${x(i)},${y(v)}`).join(' ')} />
            {s.values.map((v, i) => (
              <circle key={labels[i] ?? i} cx={x(i)} cy={y(v)} r={3}>
                <title>{`${labels[i] ?? ''} · ${s.name}: ${format(v)}`}</title>
              </circle>
            ))}
          </g>
        ))}
        {labels.map((label, i) =>
          i % every === 0 ? (
            <text key={label} x={x(i)} y={H - 8} textAnchor="middle" className="axis-label">
              {label}
            </text>
          ) : null,
        )}
      </svg>
      <Legend series={series} />
      <ChartData title={title} labels={labels} series={series} format={format} />
    </figure>
  );
}
