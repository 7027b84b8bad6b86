// The codebase's conventions as lint rules (docs/architecture.md, "Checks"; docs/decisions.md 212).
// Each convention is one of ESLint's own rules under a name of its own, so that each has its
// own `files`/`ignores` in eslint.config.mjs (in a flat config, two blocks setting the same
// rule for one file replace each other's options instead of adding up) and an error names
// the convention it breaks. No logic here: the rules are ESLint's.
import { builtinRules } from 'eslint/use-at-your-own-risk';

const builtin = (name) => {
  const rule = builtinRules.get(name);
  if (!rule) throw new Error(`eslint-rules/conventions.mjs: ESLint has no rule ${name}`);
  return rule;
};

const conventions = {
  meta: { name: 'conventions' },
  rules: {
    // libs/ imports no app, a lib is imported through its @app/<lib> index, apps import each
    // other never, the console front end imports no server code, database/ nothing of idempotency/
    'import-boundaries': builtin('no-restricted-imports'),
    // `$transaction` only in libs/platform/src/database/transaction-runner.ts
    'transactions-in-runner': builtin('no-restricted-properties'),
    // `$queryRawUnsafe` / `$executeRawUnsafe` nowhere
    'no-raw-unsafe': builtin('no-restricted-properties'),
    // `process.env` in apps/ and libs/ only in libs/platform/src/config/load-config.ts
    'env-in-config': builtin('no-restricted-properties'),
    // `this.prisma`, `$queryRaw`, `$executeRaw` only in *.repository.ts and libs/platform/src/database/
    'prisma-in-repositories': builtin('no-restricted-syntax'),
    // and PrismaService is imported only there too (and by the Nest modules that provide it)
    'prisma-service-in-repositories': builtin('no-restricted-imports'),
    // scrypt on client secrets (hashSecret, verifySecret, decoyHash) only behind SecretGate (issue 31)
    'secrets-behind-gate': builtin('no-restricted-syntax'),
  },
};

// The conventions of docs/architecture.md ("Checks") that lint can express.
const APP_AND_LIB = ['apps/**/*.{ts,tsx,mts,cts,js,mjs,cjs}', 'libs/**/*.{ts,mts,cts,js,mjs,cjs}'];
const EVERY_SOURCE = ['**/*.{ts,tsx,mts,cts,js,mjs,cjs}'];
const SERVICES = ['apps/*-api/**/*.{ts,mts,cts,js,mjs,cjs}'];
const CONSOLE_FRONT_END = ['apps/console/**/*.{ts,tsx,mts,cts,js,mjs,cjs}'];
const LIBS = ['libs/**/*.{ts,mts,cts,js,mjs,cjs}'];
const DATABASE = ['libs/platform/src/database/**/*.{ts,mts,cts,js,mjs,cjs}'];
const THROUGH_INDEX = {
  regex: '^@app/[a-z-]+/',
  message: 'A lib is imported only through its index: @app/<lib>.',
};
const OTHER_LIB_OR_APP = {
  // climbing out of the file's own src/ into another lib's or app's (../../auth/src/…, ../../../vector-api/src/…)
  regex: '^(\\.\\./)+[a-z-]+/src(/|$)',
  message: "Another lib through its index (@app/<lib>); another app never; the console's front end never.",
};
const LIB_IMPORTS = [
  { regex: '(^|/)apps/', message: 'No file under libs/ imports from apps/ (libs know no app).' },
  { regex: '^(\\.\\./)+libs/', message: 'A lib is imported only through its index: @app/<lib>.' },
  OTHER_LIB_OR_APP,
  THROUGH_INDEX,
];
const importBoundaries = (patterns) => ({ 'conventions/import-boundaries': ['error', { patterns }] });

/** The flat-config blocks that turn the conventions on, each for its files (spread into eslint.config.mjs). */
export const conventionBlocks = [
  {
    plugins: { conventions },
  },
  {
    files: LIBS,
    rules: importBoundaries(LIB_IMPORTS),
  },
  {
    // the database layer knows nothing of idempotency (which builds on it)
    files: DATABASE,
    rules: importBoundaries([
      ...LIB_IMPORTS,
      { regex: '^(\\.\\./)+idempotency(/|$)', message: 'libs/platform/src/database imports nothing of idempotency/.' },
    ]),
  },
  {
    files: SERVICES,
    rules: importBoundaries([
      { regex: '^(\\.\\./)+(libs|apps)/', message: 'A lib through its index (@app/<lib>); another app never.' },
      OTHER_LIB_OR_APP,
      THROUGH_INDEX,
    ]),
  },
  {
    // main.ts loads the platform's telemetry entry before anything else (tracing must start
    // before the modules it instruments load): that one folder of a lib, there only
    files: ['apps/*-api/src/main.ts'],
    rules: importBoundaries([
      { regex: '^(\\.\\./)+(libs|apps)/', message: 'A lib through its index (@app/<lib>); another app never.' },
      OTHER_LIB_OR_APP,
      { regex: '^@app/(?!platform/telemetry$)[a-z-]+/', message: THROUGH_INDEX.message },
    ]),
  },
  {
    // the console's front end is bundled for the browser: no server code
    files: CONSOLE_FRONT_END,
    rules: importBoundaries([
      { group: ['@app/*', '@nestjs/*', '@prisma/*'], message: "The console's front end imports no server code." },
      { regex: '^(\\.\\./)+(libs|apps)/', message: "The console's front end imports no server code." },
      { regex: '^(\\.\\./)+[a-z]+-api/', message: "The console's front end imports no server code." },
    ]),
  },
  {
    files: EVERY_SOURCE,
    ignores: ['libs/platform/src/database/transaction-runner.ts'],
    rules: {
      'conventions/transactions-in-runner': [
        'error',
        { property: '$transaction', message: 'Transactions start in libs/platform/src/database/transaction-runner.ts only.' },
      ],
    },
  },
  {
    files: EVERY_SOURCE,
    rules: {
      'conventions/no-raw-unsafe': [
        'error',
        { property: '$queryRawUnsafe', message: 'Use $queryRaw with a tagged template (values bound, SQL in sql/ snapshots).' },
        {
          property: '$executeRawUnsafe',
          message: 'Use $executeRaw with a tagged template (values bound, SQL in sql/ snapshots).',
        },
      ],
    },
  },
  {
    files: APP_AND_LIB,
    // telemetry/tracing.ts: whether OpenTelemetry's SDK starts (its own OTEL_* variables, which
    // it reads itself) is decided in main.ts before any module, the config's included, loads
    ignores: ['libs/platform/src/config/load-config.ts', 'libs/platform/src/telemetry/tracing.ts'],
    rules: {
      'conventions/env-in-config': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Configuration is read by loadConfig only: add a field to the config class.',
        },
      ],
    },
  },
  {
    files: APP_AND_LIB,
    ignores: ['**/*.repository.ts', 'libs/platform/src/database/**'],
    rules: {
      'conventions/prisma-in-repositories': [
        'error',
        {
          selector: "MemberExpression[object.type='ThisExpression'][property.name='prisma']",
          message: 'Only repositories (*.repository.ts) and libs/platform/src/database talk to Prisma.',
        },
        {
          selector: 'MemberExpression[property.name=/^\\$(queryRaw|executeRaw)$/]',
          message: 'Only repositories (*.repository.ts) and libs/platform/src/database send raw SQL.',
        },
      ],
    },
  },
  {
    files: APP_AND_LIB,
    // the Nest modules that provide it (PlatformModule) name it without talking to it
    // (and a lib's index, which re-exports it)
    ignores: ['**/*.repository.ts', 'libs/platform/src/database/**', '**/*.module.ts', 'libs/*/src/index.ts'],
    rules: {
      'conventions/prisma-service-in-repositories': [
        'error',
        {
          paths: [{ name: '@app/platform', importNames: ['PrismaService'], message: 'Only repositories use PrismaService.' }],
          patterns: [
            {
              regex: '(^|/)database/prisma\\.service$',
              importNames: ['PrismaService'],
              message: 'Only repositories use PrismaService.',
            },
          ],
        },
      ],
    },
  },
  {
    // ≈ 40 ms of CPU each: every call in an app goes through SecretGate (the token endpoint's
    // verifier and the client routes' hasher), gates before hashes (issue 31)
    files: SERVICES,
    ignores: ['apps/offers-api/src/oauth/client-secret.hasher.ts', 'apps/offers-api/src/oauth/client-secret.verifier.ts'],
    rules: {
      'conventions/secrets-behind-gate': [
        'error',
        {
          selector:
            'CallExpression:matches([callee.name=/^(hashSecret|verifySecret|decoyHash)$/], [callee.property.name=/^(hashSecret|verifySecret|decoyHash)$/])',
          message: 'scrypt on client secrets runs only behind SecretGate (client-secret.hasher.ts, client-secret.verifier.ts).',
        },
      ],
    },
  },
];

export default conventions;
