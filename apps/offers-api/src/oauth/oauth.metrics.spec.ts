import { MetricsService } from '@app/platform';
import { OAuthMetrics } from './oauth.metrics';

describe('OAuthMetrics', () => {
  it('exports every token refusal reason at 0 before the first refusal, so rate() sees the first one', async () => {
    const metrics = new MetricsService('offers-api');
    new OAuthMetrics(metrics);
    const text = await metrics.render();
    for (const reason of ['failure_budget', 'address_busy', 'queue_full', 'timeout'])
      expect(text).toContain(`oauth_token_refusals_total{reason="${reason}",service="offers-api"} 0`);
  });
});
