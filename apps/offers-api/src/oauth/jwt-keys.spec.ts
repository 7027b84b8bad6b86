import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEVELOPMENT_KEY_FILE, developmentJwtKeys, parseJwtKeys } from './jwt-keys';

describe('developmentJwtKeys (the installation key when OAUTH_JWT_KEYS is unset outside production)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'jwt-keys-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a random key on first use, mode 0600, and reads the same one afterwards', () => {
    const data = join(dir, 'nested', 'data');
    const [first] = developmentJwtKeys(data);
    const file = join(data, DEVELOPMENT_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first?.kid).toMatch(/^dev-[0-9a-f]{12}$/);
    expect(first?.secret.length).toBeGreaterThanOrEqual(32);
    const parsed = parseJwtKeys(readFileSync(file, 'utf8').trim());
    expect(parsed).toEqual([first]);
    expect(developmentJwtKeys(data)).toEqual([first]);
    expect(readdirSync(data)).toEqual([DEVELOPMENT_KEY_FILE]); // no temporary file left
  });

  it('gives two installations two different keys', () => {
    const a = developmentJwtKeys(join(dir, 'a'));
    const b = developmentJwtKeys(join(dir, 'b'));
    expect(a[0]?.kid).not.toBe(b[0]?.kid);
    expect(Buffer.from(a[0]?.secret ?? []).equals(Buffer.from(b[0]?.secret ?? []))).toBe(false);
  });

  it('ends with the key of whoever linked first when two processes create it at once', () => {
    let inner: ReturnType<typeof developmentJwtKeys> | undefined;
    // Another process creates the file between our temporary write and our link.
    const outer = developmentJwtKeys(dir, { beforeLink: () => (inner = developmentJwtKeys(dir)) });
    expect(inner).toBeDefined();
    expect(outer).toEqual(inner);
    expect(readdirSync(dir)).toEqual([DEVELOPMENT_KEY_FILE]);
  });

  it('refuses a damaged key file without echoing its content', () => {
    writeFileSync(join(dir, DEVELOPMENT_KEY_FILE), 'thisisnotakeybutsomethingsecretlooking');
    expect(() => developmentJwtKeys(dir)).toThrow(/is not valid \(entry 1 is not kid:secret\); delete it/);
    expect(() => developmentJwtKeys(dir)).not.toThrow(/somethingsecret/);
  });
});
