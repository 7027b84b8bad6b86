import { resolve } from 'node:path';
import { defineConfig } from 'vite';

// The console: one single-page app served by each service at /console (libs/console).
// Everything is bundled into dist/console: no request ever leaves the service's origin, and
// the built index.html has no inline script or style (the pages' CSP forbids both).
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: resolve(import.meta.dirname, '../../dist/console'),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
  },
});
