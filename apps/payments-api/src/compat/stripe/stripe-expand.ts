import { invalidRequest } from './stripe-error';

/** Finds the objects of some ids, of the caller's tenant only (absent ids are left as ids). */
export type ExpandResolver = (ids: readonly string[]) => Promise<ReadonlyMap<string, unknown>>;

/**
 * `expand[]`: replaces an id field by its object (`customer` on a payment intent,
 * `payment_intent` on a refund; on a list `data.customer`). `allowed` are the fields the
 * object can expand, each with its resolver; another path is Stripe's 400 "This property
 * cannot be expanded". One resolver call per field for a whole list.
 */
export async function expandObjects<T extends Record<string, unknown>>(
  objects: T[],
  paths: readonly string[],
  allowed: Readonly<Record<string, ExpandResolver>>,
  options: { list?: boolean } = {},
): Promise<T[]> {
  const fields = new Set<string>();
  for (const path of paths) {
    const field = options.list ? (path.startsWith('data.') ? path.slice('data.'.length) : undefined) : path;
    if (field === undefined || !Object.hasOwn(allowed, field)) {
      throw invalidRequest(`This property cannot be expanded (${path}).`, { code: 'parameter_invalid', param: 'expand' });
    }
    fields.add(field);
  }
  let out = objects;
  for (const field of fields) {
    const resolver = allowed[field];
    const ids = [...new Set(out.flatMap((o) => (typeof o[field] === 'string' ? [o[field]] : [])))];
    if (ids.length === 0) continue;
    const found = await resolver(ids);
    out = out.map((o) => {
      const id = o[field];
      return typeof id === 'string' && found.has(id) ? { ...o, [field]: found.get(id) } : o;
    });
  }
  return out;
}

/** expandObjects for one object. */
export async function expandObject<T extends Record<string, unknown>>(
  object: T,
  paths: readonly string[],
  allowed: Readonly<Record<string, ExpandResolver>>,
): Promise<T> {
  const [expanded] = await expandObjects([object], paths, allowed);
  return expanded;
}
