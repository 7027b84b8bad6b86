/**
 * The conventions of docs/architecture.md ("Checks") that ESLint enforces
 * (eslint-rules/conventions.mjs): each rule fires on a fixture that breaks it, and stays quiet
 * where the convention allows. `npm run lint` applies them to the code itself.
 */
import { join } from 'node:path';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { conventionBlocks } from '../../eslint-rules/conventions.mjs';

const ROOT = process.cwd();
const linter = new Linter({ configType: 'flat', cwd: ROOT });
const config: Linter.Config[] = [
  { files: ['**/*.{ts,tsx,mts,cts}'], languageOptions: { parser: tseslint.parser } },
  ...conventionBlocks,
];

/** The rules that report on `code` as the file `file` (a repository path). */
function fired(file: string, code: string): string[] {
  const messages = linter.verify(code, config, { filename: join(ROOT, file) });
  const fatal = messages.filter((m) => m.fatal);
  if (fatal.length > 0) throw new Error(fatal.map((m) => m.message).join('\n'));
  return [...new Set(messages.map((m) => (m.ruleId ?? '').replace(/^conventions\//, '')))].sort();
}

const cases: ReadonlyArray<readonly [file: string, code: string, rules: readonly string[]]> = [
  // libs know no app, and import each other through @app/<lib>
  ['libs/webhooks/src/x.ts', "import { A } from '../../../apps/offers-api/src/a';", ['import-boundaries']],
  ['libs/webhooks/src/x.ts', "import { A } from '../../auth/src/guard';", ['import-boundaries']],
  ['libs/webhooks/src/x.ts', "import { A } from '@app/auth/src/guard';", ['import-boundaries']],
  ['libs/webhooks/src/delivery/x.ts', "import { A } from '@app/auth';\nimport { B } from '../webhooks.tokens';", []],
  // database/ knows nothing of idempotency/
  ['libs/platform/src/database/x.ts', "import { A } from '../idempotency/idempotency.service';", ['import-boundaries']],
  ['libs/platform/src/http/x.ts', "import { A } from '../idempotency/idempotency.service';", []],
  // apps import each other never, nor the console's front end
  ['apps/offers-api/src/offers/x.ts', "import { A } from '../../../payments-api/src/errors';", ['import-boundaries']],
  ['apps/offers-api/src/offers/x.ts', "import { A } from '../../../console/src/api';", ['import-boundaries']],
  ['apps/offers-api/src/offers/x.ts', "import { A } from '../common/a';\nimport { B } from '@app/platform';", []],
  // the console's front end imports no server code
  ['apps/console/src/offers/x.tsx', "import { A } from '@nestjs/common';", ['import-boundaries']],
  ['apps/console/src/offers/x.tsx', "import { A } from '@app/platform';", ['import-boundaries']],
  ['apps/console/src/offers/x.tsx', "import { A } from '../../../../libs/platform/src/a';", ['import-boundaries']],
  ['apps/console/src/offers/x.tsx', "import { A } from '../api';", []],
  // transactions start in the runner
  ['apps/payments-api/src/payments/x.ts', 'void prisma.$transaction(async () => 1);', ['transactions-in-runner']],
  ['test/x.e2e-spec.ts', 'void prisma.$transaction(async () => 1);', ['transactions-in-runner']],
  ['libs/platform/src/database/transaction-runner.ts', 'void this.prisma.$transaction(async () => 1);', []],
  // no Unsafe raw SQL anywhere
  ['libs/webhooks/src/webhook-outbox.repository.ts', "void this.prisma.$queryRawUnsafe('SELECT 1');", ['no-raw-unsafe']],
  ['bench/x.ts', "void prisma.$executeRawUnsafe('SELECT 1');", ['no-raw-unsafe']],
  // process.env only in the config loader (scripts, tests and benchmarks are harnesses)
  ['libs/webhooks/src/x.ts', 'export const a = process.env.A;', ['env-in-config']],
  ['libs/platform/src/config/load-config.ts', 'export const a = process.env.A;', []],
  ['scripts/x.ts', 'export const a = process.env.A;', []],
  // only repositories and the database module talk to Prisma
  ['apps/offers-api/src/offers/offers.service.ts', 'void this.prisma.offer.findMany();', ['prisma-in-repositories']],
  ['apps/offers-api/src/offers/offers.service.ts', 'void tx.$queryRaw`SELECT 1`;', ['prisma-in-repositories']],
  [
    'apps/offers-api/src/offers/offers.service.ts',
    "import { PrismaService } from '@app/platform';",
    ['prisma-service-in-repositories'],
  ],
  [
    'libs/platform/src/http/x.ts',
    "import type { PrismaService } from '../database/prisma.service';",
    ['prisma-service-in-repositories'],
  ],
  [
    'apps/offers-api/src/offers/offers.repository.ts',
    "import { PrismaService } from '@app/platform';\nvoid this.prisma.offer.findMany();\nvoid tx.$queryRaw`SELECT 1`;",
    [],
  ],
  ['libs/platform/src/platform.module.ts', "import { PrismaService } from './database/prisma.service';", []],
  // scrypt on client secrets only behind the gate
  ['apps/offers-api/src/clients/x.ts', 'void hashSecret(s);', ['secrets-behind-gate']],
  ['apps/offers-api/src/oauth/client-secret.verifier.ts', 'void verifySecret(s, h);', []],
];

describe('lint rules of the conventions', () => {
  it.each(cases)('%s: %s → %j', (file, code, rules) => {
    expect(fired(file, code)).toEqual(rules);
  });
});
