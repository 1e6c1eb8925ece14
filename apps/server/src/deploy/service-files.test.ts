import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * deploy/sales-agent.service and the Dockerfile cannot run here (no systemd as PID 1, no Docker engine), so this
 * pins what they must keep: the tested start command (start-commands.test.ts sends it the signals), a
 * non-root user, DATA_DIR on a volume, a health check, and the same build steps the docs and CI run.
 */
const root = path.resolve(import.meta.dirname, '../../../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };

describe('start commands', () => {
  it('npm scripts exec the start script, so npm passes SIGTERM/SIGINT straight to the server', () => {
    expect(pkg.scripts.start).toBe('exec node scripts/start.mjs');
    expect(pkg.scripts['start:prod']).toBe('exec node scripts/start.mjs --prod');
  });
});

describe('deploy/sales-agent.service', () => {
  const unit = read('deploy/sales-agent.service');
  const value = (key: string) => unit.match(new RegExp(`^${key}=(.*)$`, 'm'))?.[1];

  it('runs the production start command itself (not npm) as its own user, signalled with SIGTERM', () => {
    expect(value('ExecStart')).toBe('/usr/bin/node scripts/start.mjs --prod');
    expect(value('User')).toBe('sales-agent');
    expect(value('KillSignal')).toBe('SIGTERM');
    // Longer than the server's own 15 s limit, so systemd never cuts a graceful shutdown short.
    expect(Number(value('TimeoutStopSec'))).toBeGreaterThan(15);
  });

  it('keeps DATA_DIR in its state directory and binds to loopback behind the proxy', () => {
    expect(unit).toMatch(/^Environment=DATA_DIR=\/var\/lib\/sales-agent$/m);
    expect(value('StateDirectory')).toBe('sales-agent');
    expect(unit).toMatch(/^Environment=HOST=127\.0\.0\.1$/m);
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it('builds with the documented steps and starts with the tested command', () => {
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
    expect(dockerfile).toMatch(/^RUN npm run build && npm prune --omit=dev$/m);
    expect(dockerfile).toMatch(/^CMD \["node", "scripts\/start\.mjs", "--prod"\]$/m);
  });

  it('runs as a non-root user with DATA_DIR on a volume and a health check', () => {
    const users = [...dockerfile.matchAll(/^USER (\S+)$/gm)].map((m) => m[1]);
    expect(users.at(-1)).not.toMatch(/^(root|0)$/);
    expect(dockerfile).toMatch(/^ENV .*DATA_DIR=\/data/m);
    expect(dockerfile).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n.*\/api\/health/m);
  });
});
