/** With FAULT_REPORT=1, prints what a scenario measured (for docs/reliability.md); silent otherwise. */
export function report(scenario: string, facts: Record<string, unknown>): void {
  if (!process.env.FAULT_REPORT) return;
  process.stdout.write(`[fault report] ${scenario}: ${JSON.stringify(facts)}\n`);
}
