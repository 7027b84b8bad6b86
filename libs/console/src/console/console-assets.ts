import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, resolve, sep } from 'node:path';

/** Where `npm run build` puts the console (apps/console, built by Vite). */
export const CONSOLE_DIST = resolve(process.cwd(), 'dist', 'console');

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

export interface ConsoleAsset {
  readonly body: Buffer;
  readonly type: string;
}

/**
 * The built console, read into memory once (a few hundred kB): `index.html` and the hashed
 * files under `assets/`. Empty when the console was not built.
 */
export function loadConsoleAssets(dir: string = CONSOLE_DIST): Map<string, ConsoleAsset> {
  const assets = new Map<string, ConsoleAsset>();
  if (!existsSync(dir)) return assets;
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const type = TYPES[extname(name)];
        if (type) assets.set(relative(dir, path).split(sep).join('/'), { body: readFileSync(path), type });
      }
    }
  };
  walk(dir);
  return assets;
}

/**
 * The headers of every console page and file: a strict Content-Security-Policy (only this
 * origin; no inline script or style element, no framing, no plugins), no sniffing, no referrer.
 */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};
