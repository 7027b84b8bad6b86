/**
 * Reads deploy/prometheus/alerts.yml, its promtool tests and the Grafana dashboards without a
 * YAML parser (none is a dependency): the rule files are written in one fixed layout, and
 * each reader is checked against an independent count (alert-rules.e2e-spec.ts), so a layout
 * it does not understand fails the test instead of passing it quietly.
 */

export interface AlertRule {
  readonly group: string;
  readonly alert: string;
  readonly expr: string;
  readonly runbookUrl: string | undefined;
  readonly summary: string | undefined;
}

/** The rules of a Prometheus rule file laid out as deploy/prometheus/alerts.yml is. */
export function parseAlertRules(text: string): AlertRule[] {
  const rules: Array<{ group: string; alert: string; expr: string[]; runbookUrl?: string; summary?: string }> = [];
  let group = '';
  let inExpr = false;
  for (const line of text.split('\n')) {
    const groupMatch = /^ {2}- name: (\S+)\s*$/.exec(line);
    if (groupMatch) {
      group = groupMatch[1];
      inExpr = false;
      continue;
    }
    const alert = /^ {6}- alert: (\S+)\s*$/.exec(line);
    if (alert) {
      rules.push({ group, alert: alert[1], expr: [] });
      inExpr = false;
      continue;
    }
    const current = rules.at(-1);
    if (current === undefined) continue;
    if (inExpr) {
      if (/^ {10}/.test(line) || line.trim() === '') {
        current.expr.push(line.trim());
        continue;
      }
      inExpr = false;
    }
    const expr = /^ {8}expr: (.*)$/.exec(line);
    if (expr) {
      if (expr[1].trim() === '|') inExpr = true;
      else current.expr.push(expr[1].trim());
      continue;
    }
    const runbook = /^ {10}runbook_url: (.+)$/.exec(line);
    if (runbook) current.runbookUrl = unquote(runbook[1]);
    const summary = /^ {10}summary: (.+)$/.exec(line);
    if (summary) current.summary = unquote(summary[1]);
  }
  return rules.map((r) => ({
    group: r.group,
    alert: r.alert,
    expr: r.expr.join(' ').trim(),
    runbookUrl: r.runbookUrl,
    summary: r.summary,
  }));
}

export interface RuleTestCase {
  readonly alertname: string;
  /** True when the case expects at least one alert; false for `exp_alerts: []`. */
  readonly firing: boolean;
}

/** The `alert_rule_test` cases of a promtool test file laid out as alerts.test.yml is. */
export function parseRuleTests(text: string): RuleTestCase[] {
  const cases: RuleTestCase[] = [];
  let alertname: string | undefined;
  for (const line of text.split('\n')) {
    const name = /^\s+alertname: (\S+)\s*$/.exec(line);
    if (name) {
      alertname = name[1];
      continue;
    }
    const exp = /^\s+exp_alerts:\s*(\[\])?\s*$/.exec(line);
    if (exp && alertname !== undefined) {
      cases.push({ alertname, firing: exp[1] === undefined });
      alertname = undefined;
    }
  }
  return cases;
}

/** PromQL functions, aggregations and keywords: identifiers in an expression that are not metrics. */
const PROMQL_WORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'offset',
  'bool',
  'inf',
  'nan',
]);

/**
 * The metric names an expression reads: label matchers, strings, ranges and grouping
 * clauses removed, then every identifier that is not a function call (followed by `(`) or
 * a keyword. Grafana's `$variables` sit inside matchers, so they are gone too.
 */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const m of stripped.matchAll(/(?<![\w.$])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)) {
    if (m[2] !== undefined) continue; // a function or aggregation
    if (PROMQL_WORDS.has(m[1].toLowerCase())) continue;
    names.add(m[1]);
  }
  return [...names];
}

/** A Prometheus series name as the histogram or summary that exports it (`_bucket`, `_sum`, `_count` dropped). */
export function familyOf(name: string, exported: ReadonlySet<string>): string {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (name.endsWith(suffix)) {
      const base = name.slice(0, -suffix.length);
      if (exported.has(base)) return base;
    }
  }
  return name;
}

export interface ExposedMetrics {
  /** Metric families with a `# HELP` line. */
  readonly families: Set<string>;
  /** Every sample: its series name and labels. */
  readonly samples: Array<{ readonly name: string; readonly labels: Record<string, string> }>;
}

/** Parses Prometheus text exposition (what GET /metrics answers). */
export function parseExposition(text: string): ExposedMetrics {
  const families = new Set<string>();
  const samples: Array<{ name: string; labels: Record<string, string> }> = [];
  for (const line of text.split('\n')) {
    const help = /^# HELP (\S+) /.exec(line);
    if (help) families.add(help[1]);
    if (line.startsWith('#') || line.trim() === '') continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+/.exec(line);
    if (!sample) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    samples.push({ name: sample[1], labels });
  }
  return { families, samples };
}

function unquote(value: string): string {
  const v = value.trim();
  if (v.startsWith("'") && v.endsWith("'")) return v.slice(1, -1).replace(/''/g, "'");
  if (v.startsWith('"') && v.endsWith('"')) return v.slice(1, -1);
  return v;
}
