// The server's start commands (docs/deployment.md):
// - `npm start` (`node scripts/start.mjs`): the one-command try-out. Builds the web app when it is missing or older
//   than its sources (this needs the dev dependencies), then runs the server.
// - `npm run start:prod` (`node scripts/start.mjs --prod`): production. Never builds: it serves what `npm run build`
//   produced and needs only the production dependencies; the server's TypeScript runs as is through tsx (a
//   production dependency of apps/server), so it starts in seconds.
// The server runs inside this process (no child), so SIGTERM/SIGINT sent to it — by systemd, Docker, a terminal, or
// npm, whose scripts `exec` this file — reach the server's own graceful shutdown (apps/server/src/main.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const prod = process.argv.includes('--prod');
// A WEB_DIST_DIR of the operator's own is served as it is (never built here).
const customDist = Boolean(process.env.WEB_DIST_DIR?.trim());
const dist = path.resolve(customDist ? process.env.WEB_DIST_DIR.trim() : path.join(root, 'apps/web/dist'), 'index.html');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

if (prod || customDist) {
  if (!existsSync(dist)) {
    console.error(`The web app is not built (${dist} is missing). Run \`npm run build\` first, then start again.`);
    process.exit(1);
  }
} else {
  const sources = Math.max(newestMtime(path.join(root, 'apps/web/src')), newestMtime(path.join(root, 'packages/shared/src')));
  if (!existsSync(dist) || statSync(dist).mtimeMs < sources) {
    console.log('Building the web app…');
    const build = spawnSync('npm', ['run', 'build', '-w', 'apps/web'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
}

process.env.NODE_ENV ??= 'production';
// What `node --import tsx` does, with tsx as the server resolves it (hoisted or not): TypeScript for later imports.
const requireFromServer = createRequire(path.join(root, 'apps/server/package.json'));
await import(pathToFileURL(requireFromServer.resolve('tsx')).href);
await import(pathToFileURL(path.join(root, 'apps/server/src/main.ts')).href);
