import type { LocalService } from '../../scripts/local-infra';

/** Shared between globalSetup and globalTeardown (they run in the same Jest context). */
export interface TestInfra {
  adminUrl: string;
  runId: string;
  started: LocalService[];
}

const KEY = Symbol.for('platform.testInfra');

export function setTestInfra(infra: TestInfra): void {
  (globalThis as Record<symbol, unknown>)[KEY] = infra;
}

export function getTestInfra(): TestInfra | undefined {
  return (globalThis as Record<symbol, unknown>)[KEY] as TestInfra | undefined;
}
