import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { radixThemesCss } from './radix-themes-css.mjs';

// Built by tools/dev/dashboard-build.ts (npm start, npm test's pretest, the Dockerfile) into
// dist/dashboard, which the service serves at /dashboard/ (src/api/dashboard/plugin.ts).
export default defineConfig({
  root: import.meta.dirname,
  base: '/dashboard/',
  plugins: [react(), radixThemesCss()],
  build: {
    outDir: path.resolve(import.meta.dirname, '../dist/dashboard'),
    emptyOutDir: true,
    // The CSP allows scripts and styles from our own origin only: no inline module preload polyfill.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
});
