import { MetricsService } from '@app/platform';
import { WebhooksMetrics } from './webhooks.metrics';

/** The value of one sample of the registry's text, or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('WebhooksMetrics', () => {
  it('exports every delivery outcome at 0 before the first attempt, so increase() sees the first one', async () => {
    const metrics = new MetricsService('probe-api');
    new WebhooksMetrics(metrics);
    const text = await metrics.render();
    for (const outcome of ['succeeded', 'retry_scheduled', 'failed', 'aborted', 'endpoint_disabled'])
      expect(sample(text, 'webhook_deliveries_total', { outcome })).toBe(0);
  });

  it('leaves the at-scrape gauges absent while their source fails: no -1, no stale queue depth', async () => {
    const metrics = new MetricsService('probe-api');
    const webhooks = new WebhooksMetrics(metrics);
    let failing = false;
    const answer = <T>(value: T): Promise<T> => (failing ? Promise.reject(new Error('down')) : Promise.resolve(value));
    webhooks.setSources(
      () => answer(12),
      () => answer({ waiting: 7, active: 2 }),
    );
    const up = await metrics.render();
    expect(sample(up, 'webhook_outbox_lag_seconds')).toBe(12);
    expect(sample(up, 'webhook_queue_depth', { state: 'waiting' })).toBe(7);
    failing = true;
    const down = await metrics.render();
    expect(sample(down, 'webhook_outbox_lag_seconds')).toBeUndefined();
    expect(sample(down, 'webhook_queue_depth', { state: 'waiting' })).toBeUndefined();
    expect(sample(down, 'webhook_queue_depth', { state: 'active' })).toBeUndefined();
    failing = false;
    expect(sample(await metrics.render(), 'webhook_queue_depth', { state: 'active' })).toBe(2);
  });
});
