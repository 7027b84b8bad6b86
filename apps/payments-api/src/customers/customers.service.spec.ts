import { type Clock, type TransactionRunner } from '@app/platform';
import { fake, paymentsFakes, type PaymentsFakes } from '../../../../test/fakes/payments-api';
import { rejection } from '../../../../test/fakes/rejection';
import type { PaymentEvents } from '../common/events';
import type { Tenant } from '../common/tenant';
import type { CustomersRepository } from './customers.repository';
import { CustomersService } from './customers.service';
import type { CustomerUpdateDto } from './dto/customer.dto';

const shop: Tenant = { accountId: 'acct_shop', mode: 'test' };
const shopLive: Tenant = { accountId: 'acct_shop', mode: 'live' };
const other: Tenant = { accountId: 'acct_other', mode: 'test' };

describe('CustomersService', () => {
  let fakes: PaymentsFakes;
  let service: CustomersService;

  const expectNotFound = async (promise: Promise<unknown>, id: string): Promise<void> => {
    const error = await rejection(promise);
    expect(error.code).toBe('resource_missing');
    expect(error.status).toBe(404);
    expect(error.param).toBe('id');
    expect(error.message).toBe(`No such customer: '${id}'`);
  };

  beforeEach(() => {
    fakes = paymentsFakes();
    service = new CustomersService(
      fake<CustomersRepository>(fakes.customers),
      fake<TransactionRunner>(fakes.transactions),
      fake<Clock>(fakes.clock),
      fake<PaymentEvents>(fakes.events),
    );
  });

  describe('create', () => {
    it("stores the customer under the caller's account and mode, in a transaction whose result is the view", async () => {
      const customer = await service.create(shopLive, { email: 'jenny@example.com', metadata: { crm_id: '42' } });

      expect(customer.id).toMatch(/^cus_[0-9A-Za-z]{24}$/);
      expect(customer).toEqual({
        id: customer.id,
        object: 'customer',
        email: 'jenny@example.com',
        name: null,
        description: null,
        metadata: { crm_id: '42' },
        livemode: true,
        created: '2026-11-21T05:00:00.000Z',
      });
      expect(fakes.customers.rows).toEqual([expect.objectContaining({ id: customer.id, accountId: 'acct_shop', mode: 'live' })]);
      // The transaction's result is the row; under an Idempotency-Key the claim stores it presented as
      // the route answers it (the view here, Stripe's customer on /v1: IdempotentRequest.presentedAs).
      expect(fakes.transactions.committed).toMatchObject([{ result: { id: customer.id, accountId: 'acct_shop', mode: 'live' } }]);
    });

    it('defaults metadata to an empty object', async () => {
      const customer = await service.create(shop, {});
      expect(customer).toMatchObject({ email: null, name: null, description: null, metadata: {}, livemode: false });
    });
  });

  describe('retrieve', () => {
    it("finds the tenant's live customer only", async () => {
      const mine = fakes.customers.seed(shop, { name: 'Jenny' });
      const theirs = fakes.customers.seed(other);
      const otherMode = fakes.customers.seed(shopLive);
      const deleted = fakes.customers.seed(shop, { deletedAt: new Date('2026-11-20T00:00:00Z') });

      await expect(service.retrieve(shop, mine.id)).resolves.toMatchObject({ id: mine.id, name: 'Jenny' });
      for (const id of [theirs.id, otherMode.id, deleted.id]) await expectNotFound(service.retrieve(shop, id), id);
    });
  });

  describe('update', () => {
    it('changes the given fields and leaves the others', async () => {
      const { id } = fakes.customers.seed(shop, { email: 'old@example.com', name: 'Jenny', description: 'VIP' });

      const updated = await service.update(shop, id, { email: 'new@example.com' });

      expect(updated).toMatchObject({ email: 'new@example.com', name: 'Jenny', description: 'VIP' });
      expect(fakes.customers.rows[0]).toMatchObject({ email: 'new@example.com', name: 'Jenny' });
      expect(fakes.transactions.committed).toMatchObject([
        { result: { id: updated.id, email: updated.email, name: updated.name } },
      ]);
    });

    it('merges metadata: new keys added, "" removes a key, null removes every key', async () => {
      const { id } = fakes.customers.seed(shop, { metadata: { keep: '1', drop: '2' } });

      const merged = await service.update(shop, id, { metadata: { drop: '', add: '3' } });
      expect(merged.metadata).toEqual({ keep: '1', add: '3' });

      // The validation pipe lets `metadata: null` through (@IsOptional); the DTO type does not say so.
      const cleared = await service.update(shop, id, JSON.parse('{"metadata":null}') as CustomerUpdateDto);
      expect(cleared.metadata).toEqual({});
    });

    it("refuses another tenant's or a deleted customer, changing nothing", async () => {
      const theirs = fakes.customers.seed(other, { name: 'Theirs' });
      const deleted = fakes.customers.seed(shop, { name: 'Gone', deletedAt: new Date('2026-11-20T00:00:00Z') });

      for (const { id } of [theirs, deleted]) await expectNotFound(service.update(shop, id, { name: 'Mine now' }), id);
      expect(fakes.customers.rows.map((r) => r.name)).toEqual(['Theirs', 'Gone']);
    });
  });

  describe('delete', () => {
    it('marks the customer deleted at the clock time; it is then gone', async () => {
      const { id } = fakes.customers.seed(shop);
      fakes.clock.advance(3_600_000);

      await expect(service.delete(shop, id)).resolves.toEqual({ id, object: 'customer', deleted: true });

      expect(fakes.customers.rows[0]?.deletedAt).toEqual(new Date('2026-11-21T06:00:00.000Z'));
      await expectNotFound(service.retrieve(shop, id), id);
      await expectNotFound(service.delete(shop, id), id);
      expect((await service.list(shop, {})).data).toEqual([]);
    });

    it("refuses another tenant's customer and leaves it", async () => {
      const { id } = fakes.customers.seed(other);
      await expectNotFound(service.delete(shop, id), id);
      expect(fakes.customers.rows[0]?.deletedAt).toBeNull();
    });
  });

  describe('list', () => {
    it('pages newest first, filters by exact email, and skips deleted customers', async () => {
      const ids: string[] = [];
      for (const email of ['a@example.com', 'b@example.com', 'a@example.com', 'c@example.com']) {
        fakes.clock.advance(1_000);
        ids.push(fakes.customers.seed(shop, { email }).id);
      }
      fakes.customers.seed(other, { email: 'a@example.com' });
      await service.delete(shop, ids[3] ?? '');

      const first = await service.list(shop, { limit: 2 });
      expect(first).toMatchObject({ object: 'list', has_more: true, url: '/v2/customers' });
      expect(first.data.map((c) => c.id)).toEqual([ids[2], ids[1]]);
      expect((await service.list(shop, { limit: 2, starting_after: ids[1] })).data.map((c) => c.id)).toEqual([ids[0]]);
      expect((await service.list(shop, { ending_before: ids[0] })).data.map((c) => c.id)).toEqual([ids[2], ids[1]]);
      expect((await service.list(shop, { email: 'a@example.com' })).data.map((c) => c.id)).toEqual([ids[2], ids[0]]);
    });

    it('refuses an unknown cursor as resource_missing on the parameter', async () => {
      const { id } = fakes.customers.seed(other);
      const error = await rejection(service.list(shop, { ending_before: id }));
      expect(error.code).toBe('resource_missing');
      expect(error.status).toBe(400);
      expect(error.param).toBe('ending_before');
    });
  });
});
