import { ConfigError } from '@app/platform';

/** The names of the variables a config load refused (fails the spec if it loaded). */
export function problemsOf(load: () => unknown): string[] {
  try {
    load();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map(([name]) => name);
    throw err;
  }
  throw new Error('expected a ConfigError');
}
