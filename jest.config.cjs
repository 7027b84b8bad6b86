// Jest runs our TypeScript as ESM (NestJS 12 ships ESM only): @swc/jest transforms with
// decorator metadata, and `.js` suffixes of relative imports (generated Prisma client) are
// stripped so Jest resolves the .ts sources. Type checking is `npm run typecheck`.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  },
];

const common = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: {
    '^@app/(platform|auth|webhooks|console)$': '<rootDir>/libs/$1/src/index.ts',
    '^@app/platform/telemetry$': '<rootDir>/libs/platform/src/telemetry/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/.data/'],
};

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 30000,
  // A worker is replaced once it holds more than this after a test file: ESM test files
  // (--experimental-vm-modules) leave their module graphs behind, and over a whole run one
  // worker otherwise grows until V8's heap limit aborts it.
  workerIdleMemoryLimit: '1500MB',
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/apps/**/*.spec.ts',
        '<rootDir>/libs/**/*.spec.ts',
        '<rootDir>/scripts/**/*.spec.ts',
        '<rootDir>/test/architecture/**/*.spec.ts',
        '<rootDir>/test/docs/**/*.spec.ts',
      ],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
    {
      // Docs that run: every shell and Node example of README.md and docs/*.md against the
      // BUILT services (npm run build first), one fresh platform per document.
      ...common,
      displayName: 'docs',
      testMatch: ['<rootDir>/test/docs/**/*.doc-spec.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
    {
      // Fault injection against the BUILT services as child processes (npm run build first;
      // `npm test` does it in pretest). testTimeout is a global option in Jest, so the
      // setup file applies the per-file 120 s.
      ...common,
      displayName: 'faults',
      testMatch: ['<rootDir>/test/faults/**/*.fault-spec.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/faults/support/timeout.ts'],
    },
  ],
};
