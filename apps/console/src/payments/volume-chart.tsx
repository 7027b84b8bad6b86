import type { ReactNode } from 'react';
import { get, getConsoleMode } from '../api';
import { BarChart } from '../components/charts';
import { Async, Empty } from '../components/ui';
import { useAsync } from '../hooks';
import { compactMoney } from './money';
import type { PaymentVolume } from './types';

const DAYS = 30;
const DAY_MS = 86_400_000;

/** The UTC days from `since` to `until`, inclusive (ISO dates). */
function daysBetween(since: string, until: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${since}T00:00:00Z`); t <= Date.parse(`${until}T00:00:00Z`); t += DAY_MS) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

/**
 * "Volume per day": what succeeded payments received on each of the last 30 UTC days, from
 * GET /v2/payments/volume (the database sums every payment, not one page). One chart per
 * currency: amounts of different currencies are not added up.
 */
export function VolumeChart(): ReactNode {
  const mode = getConsoleMode();
  const state = useAsync(() => get<PaymentVolume>('/v2/payments/volume', { days: DAYS }), [mode]);
  return (
    <section className="panel" aria-labelledby="volume-title">
      <h2 id="volume-title" className="payments-panel-title">
        Volume per day
      </h2>
      <Async
        state={state}
        empty={(v) =>
          v.data.length === 0 ? (
            <Empty title={`No succeeded payments in the last ${DAYS} days`}>
              Succeeded payments show here, per day (UTC) and currency.
            </Empty>
          ) : null
        }
      >
        {(v) => {
          const days = daysBetween(v.since, v.until);
          const currencies = [...new Set(v.data.map((d) => d.currency))].sort();
          return (
            <div className="payments-charts">
              {currencies.map((currency) => {
                const byDay = new Map(v.data.filter((d) => d.currency === currency).map((d) => [d.day, d.amount]));
                return (
                  <BarChart
                    key={currency}
                    title={`Succeeded volume per day, ${currency.toUpperCase()} (last ${DAYS} days, UTC)`}
                    labels={days}
                    series={[{ name: currency.toUpperCase(), values: days.map((d) => byDay.get(d) ?? 0), tone: 'series-1' }]}
                    format={(n) => compactMoney(n, currency)}
                  />
                );
              })}
            </div>
          );
        }}
      </Async>
    </section>
  );
}
