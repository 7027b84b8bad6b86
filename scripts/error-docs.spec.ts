/**
 * docs/errors.md and the error catalogues in the code are one thing: the file's code tables
 * are what `npm run docs:errors` renders from the catalogues, and every code the code under
 * apps/ and libs/ raises is in the catalogue of its owner (and every catalogued code is raised).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONSOLE_ERRORS } from '@app/auth';
import { PLATFORM_ERRORS } from '@app/platform';
import { WEBHOOKS_ERRORS } from '@app/webhooks';
import { OFFERS_ERRORS, OFFERS_PLATFORM_ERROR_NOTES } from '../apps/offers-api/src/errors';
import { OAUTH_TOKEN_ERRORS } from '../apps/offers-api/src/oauth/oauth.errors';
import { PAYMENTS_ERRORS, PAYMENTS_PLATFORM_ERROR_NOTES } from '../apps/payments-api/src/errors';
import { VECTOR_ERRORS, VECTOR_PLATFORM_ERROR_NOTES } from '../apps/vector-api/src/errors';
import { raisedCodes, sourceFiles } from './error-docs/raised-codes';
import { ERROR_OWNERS, generatedPart, OAUTH_OWNER, renderErrorTables, spliceGenerated } from './error-docs/render';

const ROOT = process.cwd();
const DOC = 'docs/errors.md';
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/**
 * The codes each place may raise besides the platform's. The console sessions' codes are
 * declared in libs/auth and raised there and by libs/console (its session routes): one row.
 */
const OWN: ReadonlyArray<readonly [prefix: string | readonly string[], codes: object, notes: object]> = [
  ['apps/offers-api/', OFFERS_ERRORS, OFFERS_PLATFORM_ERROR_NOTES],
  ['apps/vector-api/', VECTOR_ERRORS, VECTOR_PLATFORM_ERROR_NOTES],
  ['apps/payments-api/', PAYMENTS_ERRORS, PAYMENTS_PLATFORM_ERROR_NOTES],
  ['libs/webhooks/', WEBHOOKS_ERRORS, {}],
  ['libs/platform/', {}, {}],
  [['libs/auth/', 'libs/console/'], CONSOLE_ERRORS, {}],
];
const prefixes = (prefix: string | readonly string[]): readonly string[] => (typeof prefix === 'string' ? [prefix] : prefix);
const CATALOGUE_FILES = new Set([...ERROR_OWNERS.map((o) => o.source), OAUTH_OWNER.source]);

describe('docs/errors.md', () => {
  it('holds, between its markers, the tables npm run docs:errors renders from the catalogues', () => {
    const doc = read(DOC);
    const generated = renderErrorTables();
    // On a difference: run `npm run docs:errors` (and edit the catalogue in the code, not the table).
    expect(generatedPart(doc)).toBe(generated);
    expect(spliceGenerated(doc, generated)).toBe(doc);
  });

  it('documents every code of every catalogue, with a when and a fix on one line', () => {
    const owners: ReadonlyArray<{ readonly codes: Readonly<Record<string, { readonly when: string; readonly fix: string }>> }> = [
      ...ERROR_OWNERS,
      OAUTH_OWNER,
    ];
    for (const owner of owners) {
      for (const [code, spec] of Object.entries(owner.codes)) {
        expect({ code, when: spec.when.length > 20, fix: spec.fix.length > 10 }).toEqual({ code, when: true, fix: true });
        expect(`${spec.when}${spec.fix}`).not.toMatch(/[\r\n|]/);
      }
    }
    const doc = read(DOC);
    for (const code of owners.flatMap((o) => Object.keys(o.codes))) expect(doc).toContain(`| \`${code}\``);
  });

  it("keeps apps' and libs' codes apart from the platform's and from each other", () => {
    const seen = new Map<string, string>();
    for (const owner of ERROR_OWNERS) {
      for (const code of Object.keys(owner.codes)) {
        expect({ code, owners: [seen.get(code), owner.heading].filter(Boolean) }).toEqual({ code, owners: [owner.heading] });
        seen.set(code, owner.heading);
      }
    }
  });

  it('lists as webhook senders exactly the apps that import the webhooks library', () => {
    const senders = ['offers-api', 'vector-api', 'payments-api'].filter((app) =>
      sourceFiles(ROOT, [`apps/${app}/src`]).some((file) => read(file).includes('WebhooksModule')),
    );
    expect(ERROR_OWNERS.find((o) => o.source.startsWith('libs/webhooks/'))?.servedBy).toContain(senders.join(' and '));
  });
});

describe('codes raised in apps/ and libs/', () => {
  const { raised, unresolved } = raisedCodes(ROOT, ['apps', 'libs']);

  it('finds the raising sites it checks (and no code argument it cannot read)', () => {
    expect(raised.length).toBeGreaterThan(80);
    for (const code of ['amount_too_small', 'resource_missing', 'card_declined', 'headers_too_large', 'slow_down'])
      expect(raised.map((r) => r.code)).toContain(code);
    expect(unresolved).toEqual([]);
  });

  it('are each in the catalogue of their owner', () => {
    const outside = raised.filter((r) => {
      if (r.kind === 'oauth') return !(r.file.startsWith('apps/offers-api/') && r.code in OAUTH_TOKEN_ERRORS);
      const own = OWN.find(([prefix]) => prefixes(prefix).some((p) => r.file.startsWith(p)));
      return !(r.code in PLATFORM_ERRORS || (own !== undefined && r.code in own[1]));
    });
    expect(outside.map((r) => `${r.at}: ${r.code}`)).toEqual([]);
  });

  it('include every catalogued code, and every platform code an app documents as raising', () => {
    const raisedIn = (prefix: string | readonly string[], kind: 'domain' | 'oauth' = 'domain'): Set<string> =>
      new Set(raised.filter((r) => r.kind === kind && prefixes(prefix).some((p) => r.file.startsWith(p))).map((r) => r.code));
    const stale: string[] = [];
    for (const [prefix, codes, notes] of OWN) {
      const here = raisedIn(prefix);
      for (const code of [...Object.keys(codes), ...Object.keys(notes)])
        if (!here.has(code)) stale.push(`${prefixes(prefix).join(' + ')}: ${code}`);
    }
    const oauth = raisedIn('apps/offers-api/', 'oauth');
    for (const code of Object.keys(OAUTH_TOKEN_ERRORS)) if (!oauth.has(code)) stale.push(`oauth: ${code}`);
    // The platform's codes are also answered from typed tables (the exception filter's status map): a literal anywhere will do.
    const literals = sourceFiles(ROOT, ['apps', 'libs'])
      .filter((file) => !CATALOGUE_FILES.has(file))
      .map(read)
      .join('\n');
    for (const code of Object.keys(PLATFORM_ERRORS)) if (!literals.includes(`'${code}'`)) stale.push(`platform: ${code}`);
    expect(stale).toEqual([]);
  });
});
