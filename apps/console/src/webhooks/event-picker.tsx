import { type ReactNode, useId } from 'react';
import type { WebhookEventType } from './types';

/**
 * The event kinds an endpoint receives: "All events" (`*`, also kinds added later) or a
 * choice of the catalogue's kinds. A fieldset of checkboxes: labelled, usable by keyboard.
 */
export function EventPicker({
  kinds,
  value,
  onChange,
}: {
  kinds: readonly WebhookEventType[];
  value: readonly string[];
  onChange: (events: string[]) => void;
}): ReactNode {
  const id = useId();
  const all = value.includes('*');
  const toggle = (type: string, checked: boolean): void => {
    const rest = value.filter((v) => v !== type && v !== '*');
    onChange(checked ? [...rest, type] : rest);
  };
  return (
    <fieldset className="wh-events" aria-describedby={`${id}-hint`}>
      <legend>Events</legend>
      <p id={`${id}-hint`} className="hint">
        Choose the kinds this endpoint receives, or all of them (including kinds added later).
      </p>
      <label className="checkbox">
        <input type="checkbox" checked={all} onChange={(e) => onChange(e.target.checked ? ['*'] : [])} />
        <span>
          All events <code>*</code>
        </span>
      </label>
      <div className="wh-event-list">
        {kinds.map((k) => (
          <label key={k.type} className="checkbox">
            <input
              type="checkbox"
              checked={all || value.includes(k.type)}
              disabled={all}
              onChange={(e) => toggle(k.type, e.target.checked)}
            />
            <span>
              <code>{k.type}</code> <span className="muted small">{k.description}</span>
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** Events shown compactly: `*` reads "All events". */
export function EventsSummary({ events }: { events: readonly string[] }): ReactNode {
  if (events.includes('*')) return <span>All events</span>;
  return (
    <span className="wh-chips">
      {events.map((e) => (
        <code key={e}>{e}</code>
      ))}
    </span>
  );
}

/** A `datetime-local` value (local time, no zone) as an ISO timestamp; undefined when empty or invalid. */
export function localToIso(value: string): string | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** A Date as a `datetime-local` value in local time (minutes). */
export function toLocalInput(d: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
