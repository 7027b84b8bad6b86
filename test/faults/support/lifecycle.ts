import { query } from './fixtures';

export const LIFECYCLE = ['offer.opened', 'offer.closing_soon', 'offer.closed'] as const;
const WITHOUT_WARNING = ['offer.opened', 'offer.closed'];

/**
 * Whether `offer.closing_soon` must be there: `required` when the offer opened on time
 * with its close still ahead; `absent` when its transitions could only run after the close
 * was due (no warning for an offer already closing: docs/decisions.md 33); `either` when
 * that depends on how late the (restarted) worker got to it.
 */
export type ClosingSoon = 'required' | 'absent' | 'either';

/**
 * An offer's lifecycle events from the outbox, oldest first (events written in the same
 * millisecond — one transaction: opened with closing_soon — in lifecycle order).
 */
export function lifecycleEvents(dbUrl: string, offerId: string): Promise<Array<{ id: string; event: string }>> {
  return query(
    dbUrl,
    `SELECT id, event FROM webhook_events WHERE data->>'id' = $1 AND event = ANY($2::text[])
      ORDER BY created_at, array_position($2::text[], event::text)`,
    [offerId, [...LIFECYCLE]],
  );
}

/** The transitions happened once each and in order: opened, (closing_soon), closed. */
export function expectOnceEachInOrder(offerId: string, events: readonly string[], closingSoon: ClosingSoon): void {
  const allowed =
    closingSoon === 'required'
      ? [[...LIFECYCLE]]
      : closingSoon === 'absent'
        ? [WITHOUT_WARNING]
        : [[...LIFECYCLE], WITHOUT_WARNING];
  expect(allowed.map((a) => ({ offerId, events: a }))).toContainEqual({ offerId, events: [...events] });
}
