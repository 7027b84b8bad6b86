/** A partner's tier: decides its rate limit (platform contract: Offers service decisions). */
export type Tier = 'starter' | 'growth' | 'enterprise';
export const TIERS: readonly Tier[] = ['starter', 'growth', 'enterprise'];
