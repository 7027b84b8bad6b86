import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { type ValidationError, validateSync } from 'class-validator';
import type { PlatformConfig } from './platform-config';

/** Thrown at boot when the environment is invalid; its message names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: ReadonlyArray<readonly [string, string]>) {
    super(`Invalid configuration: ${problems.map(([name, problem]) => `${name} ${problem}`).join('; ')}`);
    this.name = 'ConfigError';
  }
}

function describe(error: ValidationError, env: Readonly<Record<string, string | undefined>>): string {
  const constraints = Object.values(error.constraints ?? {});
  const raw = env[error.property];
  const actual = raw === undefined ? 'is not set' : `got ${JSON.stringify(raw)}`;
  const messages = constraints.map((m) => m.replace(new RegExp(`^${error.property}\\s+`), ''));
  return `${messages.join(', ')} (${actual})`;
}

/**
 * Reads, converts and validates the environment into a config object, once, at boot.
 * Numbers are converted from strings; unknown variables are ignored.
 */
export function loadConfig<T extends PlatformConfig>(
  cls: new () => T,
  env: Readonly<Record<string, string | undefined>> = process.env,
): T {
  const defined: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') defined[k] = v;
  const config = plainToInstance(cls, defined, {
    excludeExtraneousValues: true,
    exposeDefaultValues: true,
    enableImplicitConversion: true,
  });
  const errors = validateSync(config, { forbidUnknownValues: false });
  const problems: Array<[string, string]> = errors.map((e) => [e.property, describe(e, env)]);
  if (problems.length === 0) problems.push(...config.crossChecks());
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
