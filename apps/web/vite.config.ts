import { readFileSync, readdirSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vitest/config';
import { firstScreens, LOGIN_FORM, type FirstScreen } from './vite-plugins/first-screens.ts';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Text files worth compressing; images and fonts are already compressed. */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|map|webmanifest)$/;
/** Below this a compressed copy saves less than its own response headers. */
const MIN_BYTES = 1024;

/**
 * Writes a .br and a .gz copy next to every compressible file of the build, at maximum compression, so the
 * server (@fastify/static `preCompressed`) answers with them without compressing on each request.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'sales-agent:precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      const files = (await readdir(outDir, { recursive: true, withFileTypes: true }))
        .filter((entry) => entry.isFile() && COMPRESSIBLE.test(entry.name))
        .map((entry) => path.join(entry.parentPath, entry.name));
      await Promise.all(
        files.map(async (file) => {
          const data = await readFile(file);
          if (data.length < MIN_BYTES) return;
          const [br, gz] = await Promise.all([
            brotli(data, {
              params: {
                [zlibConstants.BROTLI_PARAM_QUALITY]: zlibConstants.BROTLI_MAX_QUALITY,
                [zlibConstants.BROTLI_PARAM_SIZE_HINT]: data.length,
              },
            }),
            gzipAsync(data, { level: 9 }),
          ]);
          await Promise.all([writeFile(`${file}.br`, br), writeFile(`${file}.gz`, gz)]);
        }),
      );
    },
  };
}

const REST_STYLES_ID = 'virtual:mantine-rest-styles.css';

/**
 * `virtual:mantine-rest-styles.css`: every @mantine/core component stylesheet that first-screen-styles.ts does
 * not import, in the order of @mantine/core/styles.css. The start and login pages load only the first screens'
 * styles; other pages load this one (all-styles.ts), so no rule is sent twice and a component added to Mantine
 * is styled without anyone listing it.
 */
function mantineRestStyles(firstScreenFile: string): Plugin {
  const resolvedId = `\0${REST_STYLES_ID}`;
  return {
    name: 'sales-agent:mantine-rest-styles',
    resolveId(id) {
      return id === REST_STYLES_ID ? resolvedId : undefined;
    },
    load(id) {
      if (id !== resolvedId) return undefined;
      this.addWatchFile(firstScreenFile);
      const stylesDir = path.dirname(createRequire(import.meta.url).resolve('@mantine/core/styles.css'));
      const full = readFileSync(path.join(stylesDir, 'styles.css'), 'utf8');
      const firstScreen = new Set([...readFileSync(firstScreenFile, 'utf8').matchAll(/@mantine\/core\/styles\/([\w-]+)\.css/g)].map((m) => m[1]));
      const parts = readdirSync(path.join(stylesDir, 'styles'))
        .filter((file) => file.endsWith('.css') && !file.endsWith('.layer.css') && !firstScreen.has(file.slice(0, -'.css'.length)))
        .map((file) => {
          const css = readFileSync(path.join(stylesDir, 'styles', file), 'utf8').trim();
          const at = full.indexOf(css);
          // Not found verbatim (should not happen): after the others, still styled.
          return { css, at: at === -1 ? Number.MAX_SAFE_INTEGER : at };
        })
        .sort((a, b) => a.at - b.at);
      return parts.map((p) => p.css).join('\n');
    },
  };
}

/**
 * The pages people open directly, each answered with its own document (vite-plugins/first-screens.ts): its
 * chunks and data preloaded and its header and h1 drawn before the JavaScript runs. Titles are the pages' h1s.
 */
const FIRST_SCREENS: FirstScreen[] = [
  {
    name: 'start',
    paths: ['/', '/conversation/new'],
    page: 'src/features/conversations/pages/conversation-new-page.tsx',
    title: 'Start new conversation',
    allStyles: false,
    fetch: ['/api/conversation-type/listt'],
  },
  { name: 'login', paths: ['/login'], page: 'src/features/auth/pages/login-page.tsx', title: 'Login', card: true, body: LOGIN_FORM, allStyles: false },
  {
    name: 'inbox',
    paths: ['/conversation/list'],
    page: 'src/features/conversations/pages/conversation-list-page.tsx',
    title: 'Conversations',
    allStyles: true,
    // The list page's first request without a query string (conversation-list-page.tsx passes the URL's
    // filters, none here). Anonymous visitors get a 401 for it and go to /login.
    fetch: ['/api/conversation/list'],
  },
];

export default defineConfig({
  plugins: [
    react(),
    precompress(),
    firstScreens(FIRST_SCREENS),
    mantineRestStyles(path.resolve(import.meta.dirname, 'src/app/first-screen-styles.ts')),
  ],
  build: {
    outDir: 'dist',
    // Spec §7.9: script chunks load from a static/js path on the same origin.
    assetsDir: 'static/js',
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      // The first screens' early session check is an entry of its own (src/session-check.ts).
      input: { index: path.resolve(import.meta.dirname, 'index.html'), 'session-check': path.resolve(import.meta.dirname, 'src/session-check.ts') },
      // Chunks under 20 KB are merged into others where that changes no side effect: a first screen fetches
      // a handful of chunks instead of dozens of 1–2 KB ones, each a round trip on a slow link.
      output: { experimentalMinChunkSize: 20_000 },
    },
  },
  server: { port: 5173, proxy: { '/api': 'http://localhost:3000' } },
  test: { environment: 'jsdom', include: ['src/**/*.test.{ts,tsx}'] },
});
