import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { OutputBundle, OutputChunk } from 'rollup';
import type { Plugin } from 'vite';

/**
 * A page that people open directly (a link, a bookmark, after a redirect), whose first screen should show
 * before the JavaScript has arrived and run (issue 12, item 7).
 */
export interface FirstScreen {
  /** Written to `first-screens/<name>.html` in the build. */
  name: string;
  /** URL paths (without query) answered with this document instead of index.html (the server's web-app.ts). */
  paths: string[];
  /** The page module the router loads lazily for these paths; its chunks are preloaded. */
  page: string;
  /** The page's h1, exactly as the page renders it; also the document title (PageTitle adds ' · Sales Agent'). */
  title: string;
  /** The page draws its h1 inside a card (login-page.tsx: Card maw 420, mx auto, mt xl, p lg). */
  card?: boolean;
  /** What the page draws under its h1, as static HTML and its CSS (e.g. LOGIN_FORM). */
  body?: { html: string; css: string };
  /**
   * The page loads the rest of Mantine's stylesheet with its chunk (router.tsx `page()`, all-styles.ts): preloaded
   * too. The start and login pages need only the first screens' styles (router.tsx `startPage`, `loginPage`).
   */
  allStyles: boolean;
  /** GET API requests the page makes at once: preloaded so they do not wait for the JavaScript. */
  fetch?: string[];
}

/** The manifest the server reads to answer each path with its document. */
/**
 * The page's chunks and styles are preloaded at low priority: the main chunk and the first screen's stylesheet
 * come first (the shell needs only the stylesheet; nothing runs before the main chunk), and a preload at
 * Chrome's default high priority counts as render-blocking in Lighthouse's model when it ends before the
 * first paint.
 */
const LOW = ' fetchpriority="low"';
export const MANIFEST = 'first-screens.json';
const ALL_STYLES_MODULE = 'src/app/all-styles.ts';
/** The early session check (an entry of its own in vite.config.ts). */
const SESSION_CHECK_MODULE = 'src/session-check.ts';

/**
 * For each first screen, writes a copy of index.html with
 *   - the page's chunks as <link rel="modulepreload"> and their CSS as <link rel="preload" as="style"> (at low
 *     priority, see LOW), so they download beside the main chunk instead of after it has run (router.tsx
 *     loads pages lazily);
 *   - the early session check (src/session-check.ts) as an async module script: the session's POST goes out
 *     beside the main chunk's download instead of after it has run;
 *   - its API requests as <link rel="preload" as="fetch"> (same URL and credentials mode as api-client.ts's
 *     fetch, so the browser hands the preloaded answer to it);
 *   - a static shell inside #root: the header's brand, the page's h1 (and `body`, e.g. LOGIN_FORM) and the
 *     footer, drawn where the app draws them, so
 *     the first paint (and the largest one, when the h1 is the largest text) needs only the HTML and the
 *     first screen's CSS. main.tsx renders the app once the page's chunk has loaded, and React replaces the
 *     shell in one commit (no loading spinner in between).
 * and `first-screens.json` ({ path: file }) for the server. index.html stays the plain document for every
 * other path.
 */
export function firstScreens(screens: FirstScreen[]): Plugin {
  let root = process.cwd();
  let env: Record<string, string | undefined> = {};
  return {
    name: 'sales-agent:first-screens',
    apply: 'build',
    enforce: 'post',
    configResolved(config) {
      root = config.root;
      env = config.env;
    },
    async writeBundle(options, bundle) {
      const outDir = options.dir!;
      const index = bundle['index.html'];
      if (!index || index.type !== 'asset') throw new Error('first-screens: index.html is not in the build output');
      const html = String(index.source);
      const chunks = Object.values(bundle).filter((c): c is OutputChunk => c.type === 'chunk');
      const chunkOf = (module: string) => {
        const id = path.resolve(root, module);
        // The page's own chunk; its facade is unset when the chunk also exports modules other chunks import.
        const chunk = chunks.find((c) => c.facadeModuleId === id) ?? chunks.find((c) => c.moduleIds.includes(id));
        if (!chunk) throw new Error(`first-screens: no chunk for ${module}`);
        return chunk;
      };
      const sessionCheck = chunkOf(SESSION_CHECK_MODULE);
      const footer = footerHtml(env);
      const manifest: Record<string, string> = {};
      await mkdir(path.join(outDir, 'first-screens'), { recursive: true });
      for (const screen of screens) {
        const preloads = chunkClosure(bundle, chunkOf(screen.page));
        const css = new Set(preloads.flatMap((c) => [...(c.viteMetadata?.importedCss ?? [])]));
        if (screen.allStyles) css.add(pureCssOf(bundle, ALL_STYLES_MODULE));
        const head = [
          `<title>${escapeHtml(screen.title)} · Sales Agent</title>`,
          `<script type="module" async crossorigin src="/${sessionCheck.fileName}"></script>`,
          ...preloads.map((c) => `<link rel="modulepreload" crossorigin${LOW} href="/${c.fileName}">`),
          ...[...css].map((file) => `<link rel="preload" as="style" crossorigin${LOW} href="/${file}">`),
          ...(screen.fetch ?? []).map((url) => `<link rel="preload" as="fetch" crossorigin href="${escapeHtml(url)}">`),
          `<style>${SHELL_CSS}${screen.body?.css ?? ''}</style>`,
        ].join('\n    ');
        const document = html
          .replace(/<title>[^<]*<\/title>/, head)
          .replace('<div id="root"></div>', `<div id="root">${shellHtml(screen, footer)}</div>`);
        if (document === html || !document.includes('class="fs"')) throw new Error('first-screens: index.html has no <title> or empty <div id="root">');
        const file = `first-screens/${screen.name}.html`;
        await writeFile(path.join(outDir, file), document);
        for (const p of screen.paths) manifest[p] = file;
      }
      await writeFile(path.join(outDir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    },
  };
}

/** The stylesheet of a module that only imports CSS (vite drops its empty JavaScript chunk). */
function pureCssOf(bundle: OutputBundle, module: string): string {
  const asset = Object.values(bundle).find((a) => a.type === 'asset' && a.fileName.endsWith('.css') && a.originalFileNames.includes(module));
  if (!asset) throw new Error(`first-screens: no stylesheet for ${module}`);
  return asset.fileName;
}

/** The chunk and every chunk it imports statically, except the entry (already in index.html). */
function chunkClosure(bundle: OutputBundle, start: OutputChunk): OutputChunk[] {
  const seen = new Map<string, OutputChunk>();
  const visit = (chunk: OutputChunk) => {
    if (chunk.isEntry || seen.has(chunk.fileName)) return;
    seen.set(chunk.fileName, chunk);
    for (const file of chunk.imports) {
      const next = bundle[file];
      if (next?.type === 'chunk') visit(next);
    }
  };
  visit(start);
  return [...seen.values()];
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** layout.tsx's Brand: @tabler/icons-react IconHexagonFilled (20 px) and the product name. */
const BRAND = `<a class="fs-brand" href="/" aria-label="Sales Agent home"><svg width="20" height="20" viewBox="0 0 24 24" fill="currentColor" aria-hidden="true"><path d="M10.425 1.414l-6.775 3.996a3.21 3.21 0 0 0 -1.65 2.807v7.285a3.226 3.226 0 0 0 1.678 2.826l6.695 4.237c1.034 .57 2.22 .57 3.2 .032l6.804 -4.302c.98 -.537 1.623 -1.618 1.623 -2.793v-7.284l-.005 -.204a3.223 3.223 0 0 0 -1.284 -2.39l-.107 -.075l-.007 -.007a1.074 1.074 0 0 0 -.181 -.133l-6.776 -3.995a3.33 3.33 0 0 0 -3.216 0z"/></svg>Sales Agent</a>`;

function shellHtml(screen: FirstScreen, footer: string): string {
  const title = `<h1 class="fs-title">${escapeHtml(screen.title)}</h1>${screen.body?.html ?? ''}`;
  return `<div class="fs"><header class="fs-header">${BRAND}</header><main class="fs-main">${screen.card ? `<div class="fs-card">${title}</div>` : title}</main>${footer}</div>`;
}

/**
 * layout.tsx's Footer. It is static, and on a phone its copyright line is larger than what the login page
 * draws, so without it the largest contentful paint would wait for the app's copy. The links are
 * config/paths.ts's externalLinks (same variables, same defaults); the year is the build's, the app writes
 * the current one.
 */
function footerHtml(env: Record<string, string | undefined>): string {
  const terms = env.VITE_TERMS_URL ?? 'https://example.com/terms';
  const privacy = env.VITE_PRIVACY_URL ?? 'https://example.com/privacy';
  const link = (href: string, text: string) => `<a href="${escapeHtml(href)}" target="_blank" rel="noreferrer">${text}</a>`;
  return `<footer class="fs-footer"><div class="fs-footer-row"><div class="fs-links">${link(terms, 'Terms of Service')}${link(privacy, 'Privacy Policy')}</div><p class="fs-dimmed">© 2024–${new Date().getFullYear()} Sales Agent</p></div></footer>`;
}

/**
 * The shell drawn with the geometry of layout.tsx (header: 12 px padding around 34 px controls below Mantine's
 * `sm` breakpoint, 36 px from it, and a 1 px border; main: Container xl with 16 px padding) and PageTitle (an
 * h1 at the h2 size). Mantine sets the colour scheme on <html> only when React mounts, so until then the
 * shell follows the system setting (the app's default, 'auto').
 */
const SHELL_CSS = [
  '.fs{min-height:100vh;display:flex;flex-direction:column}',
  '.fs-header{box-sizing:border-box;height:59px;padding:0 16px;display:flex;align-items:center;border-bottom:1px solid var(--mantine-color-gray-4)}',
  '@media (min-width:48em){.fs-header{height:61px}}',
  '.fs-brand{display:inline-flex;align-items:center;gap:6px;font-size:var(--mantine-font-size-lg);line-height:var(--mantine-line-height-lg);font-weight:700;color:var(--mantine-color-indigo-8);text-decoration:none}',
  '.fs-main{box-sizing:border-box;flex:1;width:100%;max-width:calc(82.5rem * var(--mantine-scale));margin:0 auto;padding:16px}',
  '.fs-footer{padding:12px 16px;border-top:1px solid var(--mantine-color-gray-4)}',
  '.fs-footer-row{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:10px}',
  '.fs-links{display:flex;flex-wrap:wrap;align-items:center;gap:16px}',
  '.fs-footer a,.fs-footer p{margin:0;font-size:var(--mantine-font-size-sm);line-height:var(--mantine-line-height-sm)}',
  '.fs-footer a{color:var(--mantine-color-indigo-8);text-decoration:underline}.fs-dimmed{color:var(--mantine-color-gray-7)}',
  '.fs-title{margin:0 0 16px;font-family:var(--mantine-font-family-headings);font-size:var(--mantine-h2-font-size);line-height:var(--mantine-h1-line-height);font-weight:700}',
  '.fs-card{box-sizing:border-box;max-width:420px;margin:32px auto 0;padding:20px;border:1px solid var(--mantine-color-gray-3);border-radius:var(--mantine-radius-md)}',
  '@media (prefers-color-scheme:dark){:root:not([data-mantine-color-scheme]){color-scheme:dark}',
  ':root:not([data-mantine-color-scheme]) body{background:var(--mantine-color-dark-7);color:var(--mantine-color-dark-0)}',
  '.fs-brand,.fs-footer a{color:var(--mantine-color-indigo-3)}.fs-header,.fs-card,.fs-footer{border-color:var(--mantine-color-dark-4)}.fs-card{background:var(--mantine-color-dark-6)}.fs-dimmed{color:var(--mantine-color-dark-1)}}',
].join('');

/**
 * login-page.tsx's form under the h1, drawn before the JavaScript runs: the two labelled fields, the Login
 * button and the 'No account yet? Register' line, at the app's sizes (Stack gap md; an input label of 14 px in
 * a 24.8 px line over a 36 px input; Text size sm). That last line is the page's largest text, so the largest
 * contentful paint is the shell's and the app's identical copy of it does not replace it (Lighthouse took the
 * app's line, painted after the JavaScript, until then). The fields are pictures of the form, hidden from
 * assistive technology: the app's own form replaces them once the page's chunk has loaded (main.tsx). The
 * Register link works without JavaScript. With a Meta app configured, the app adds 'Continue with Facebook'
 * above that line once its configuration has loaded (facebook-login-button.tsx), as it did before.
 */
export const LOGIN_FORM = {
  html: [
    '<div class="fs-form" aria-hidden="true">',
    '<div class="fs-field"><span class="fs-label">Email</span><span class="fs-input"></span></div>',
    '<div class="fs-field"><span class="fs-label">Password</span><span class="fs-input"></span></div>',
    '<span class="fs-button">Login</span>',
    '</div>',
    '<p class="fs-text">No account yet? <a href="/register">Register</a></p>',
  ].join(''),
  css: [
    '.fs-form{display:flex;flex-direction:column;gap:16px;margin-bottom:16px}',
    '.fs-label{display:inline-block;font-size:var(--mantine-font-size-sm);font-weight:600}',
    '.fs-input{display:block;box-sizing:border-box;height:36px;border:1px solid var(--mantine-color-gray-4);border-radius:var(--mantine-radius-md);background:var(--mantine-color-body)}',
    '.fs-button{display:flex;align-items:center;justify-content:center;height:36px;border-radius:var(--mantine-radius-md);background:var(--mantine-color-indigo-8);color:var(--mantine-color-white);font-size:var(--mantine-font-size-sm);font-weight:600}',
    '.fs-text{margin:0;font-size:var(--mantine-font-size-sm);line-height:var(--mantine-line-height-sm)}',
    '.fs-text a{color:var(--mantine-color-indigo-8);text-decoration:underline}',
    '@media (prefers-color-scheme:dark){.fs-input{border-color:var(--mantine-color-dark-4);background:var(--mantine-color-dark-6)}.fs-text a{color:var(--mantine-color-indigo-3)}}',
  ].join(''),
};
