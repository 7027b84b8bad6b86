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

/** Variables whose values are secrets: a config error names them but never echoes the value. */
const SECRET_VARIABLE = /(KEY|KEYS|SECRET|TOKEN|PASSWORD)$/;

/** What a config error may say about a value: secrets only by length, URLs without their credentials. */
export function describeValue(name: string, raw: string): string {
  if (SECRET_VARIABLE.test(name)) return `got a value of ${raw.length} characters`;
  // up to the last '@' before the path: a password may itself contain '@'
  const withoutCredentials = raw.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/\s]*@/i, '$1[redacted]@');
  return `got ${JSON.stringify(withoutCredentials)}`;
}

function describe(error: ValidationError, env: Readonly<Record<string, string | undefined>>): string {
  const constraints = Object.values(error.constraints ?? {});
  const raw = env[error.property];
  const actual = raw === undefined ? 'is not set' : describeValue(error.property, raw);
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
