import { HOUR, offersDomain, rejection, T0 } from '../../../../test/fakes/offers-api/offers-domain';
import { checkTermsVersion } from './terms-check';

describe('TermsService', () => {
  it('answers 404 resource_missing while no terms are published', async () => {
    const { terms } = offersDomain();
    expect(await rejection(terms.current())).toMatchObject({ code: 'resource_missing', status: 404 });
  });

  it('publishes a version stamped with the clock, in a transaction, and serves it as current', async () => {
    const { terms, clock, transactions, db } = offersDomain();
    clock.set(T0 + HOUR);
    const published = await terms.publish({ version: '2026-11-01', title: 'Investor terms', body: 'Be careful.' });
    expect(published).toEqual({
      version: '2026-11-01',
      title: 'Investor terms',
      body: 'Be careful.',
      published_at: new Date(T0 + HOUR).toISOString(),
    });
    expect(transactions.runs).toHaveLength(1);
    expect(db.terms.map((t) => t.version)).toEqual(['2026-11-01']);
    expect(await terms.current()).toEqual(published);
  });

  it('refuses a version that exists: 409 resource_already_exists on version, the first one kept', async () => {
    const { terms, db } = offersDomain();
    await terms.publish({ version: 'v1', title: 'First', body: 'one' });
    expect(await rejection(terms.publish({ version: 'v1', title: 'Second', body: 'two' }))).toMatchObject({
      code: 'resource_already_exists',
      status: 409,
      param: 'version',
    });
    expect(db.terms).toHaveLength(1);
    expect((await terms.current()).title).toBe('First');
  });

  it('the current version is the latest published, then the greatest version at the same instant', async () => {
    const { terms, clock } = offersDomain();
    await terms.publish({ version: 'b', title: 'B', body: 'b' });
    clock.advance(1_000);
    await terms.publish({ version: 'a', title: 'A', body: 'a' });
    expect((await terms.current()).version).toBe('a');
    await terms.publish({ version: 'c', title: 'C', body: 'c' });
    expect((await terms.current()).version).toBe('c');
  });
});

describe('checkTermsVersion (the terms check indications use)', () => {
  const failure = (version: string, current: string | undefined) =>
    rejection(Promise.resolve().then(() => checkTermsVersion(version, current)));

  it('returns the version when it is the current one', () => {
    expect(checkTermsVersion('2026-11-01', '2026-11-01')).toBe('2026-11-01');
  });

  it('400 terms_version_invalid when none is published', async () => {
    expect(await failure('2026-11-01', undefined)).toMatchObject({
      code: 'terms_version_invalid',
      status: 400,
      param: 'terms_version',
      details: {},
    });
  });

  it('400 terms_version_invalid naming the current version for any other value', async () => {
    const error = await failure('2026-10-01', '2026-11-01');
    expect(error).toMatchObject({
      code: 'terms_version_invalid',
      status: 400,
      param: 'terms_version',
      details: { current_version: '2026-11-01' },
    });
    expect(error.message).toContain("the current version is '2026-11-01'");
  });
});
