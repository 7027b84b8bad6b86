import type { ReactNode } from 'react';
import { Pager } from '../components/ui';
import type { StripeList } from './use-stripe-list';

/** Previous / Next for a useStripeList list. */
export function PaymentsPager<T>({ list, label }: { list: StripeList<T>; label: string }): ReactNode {
  if (list.page === 1 && !list.hasNext) return null;
  return (
    <Pager
      page={list.page}
      hasPrevious={list.hasPrevious}
      hasNext={list.hasNext}
      onPrevious={() => list.previous()}
      onNext={() => list.next()}
      label={label}
    />
  );
}
