import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EnvError, loadConfig, readEnvironment } from './env.ts';

/** `.env` in the working directory, or the file ENV_FILE names, read at start; the environment wins (docs/configuration.md). */
const dir = mkdtempSync(path.join(tmpdir(), 'sa-envfile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function folder(name: string, files: Record<string, string>) {
  const cwd = path.join(dir, name);
  mkdirSync(cwd, { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(cwd, file)), { recursive: true });
    writeFileSync(path.join(cwd, file), text);
  }
  return cwd;
}

const SECRET = 'test-secret-test-secret-test-secret';

describe('.env file', () => {
  it('reads .env in the working directory, with the environment winning over the file', () => {
    const cwd = folder('plain', {
      '.env': ['# a comment', 'PORT=4100', 'LOG_LEVEL=warn', 'REGISTRATION=invite', `APP_SECRET="${SECRET}"`, 'LLM_MODEL=from-file', ''].join('\n'),
    });
    const env = readEnvironment({ LLM_MODEL: 'from-environment', PORT: '4200' }, cwd);
    const config = loadConfig(env);
    expect(config.PORT).toBe(4200); // the environment wins
    expect(config.LLM_MODEL).toBe('from-environment');
    expect(config.LOG_LEVEL).toBe('warn'); // only in the file
    expect(config.REGISTRATION).toBe('invite');
    expect(config.APP_SECRET).toBe(SECRET); // quotes removed
  });

  it('keeps the environment as it is without a .env file', () => {
    const cwd = folder('none', {});
    const source = { PORT: '4300' };
    expect(readEnvironment(source, cwd)).toEqual(source);
  });

  it('reads the file ENV_FILE names instead of .env, relative to the working directory or absolute', () => {
    const cwd = folder('named', { '.env': 'PORT=4400\n', 'config/prod.env': 'PORT=4500\nLOG_LEVEL=error\n' });
    expect(loadConfig(readEnvironment({ ENV_FILE: 'config/prod.env', APP_SECRET: SECRET }, cwd)).PORT).toBe(4500);
    const absolute = path.join(cwd, 'config/prod.env');
    const config = loadConfig(readEnvironment({ ENV_FILE: absolute, APP_SECRET: SECRET, LOG_LEVEL: 'debug' }, cwd));
    expect(config.PORT).toBe(4500);
    expect(config.LOG_LEVEL).toBe('debug');
  });

  it('stops with a sentence when ENV_FILE names a missing file', () => {
    const cwd = folder('missing', {});
    expect(() => readEnvironment({ ENV_FILE: 'nope.env' }, cwd)).toThrow(EnvError);
    expect(() => readEnvironment({ ENV_FILE: 'nope.env' }, cwd)).toThrow(/ENV_FILE: .*nope\.env does not exist/);
  });

  it('validates values from the file like any other', () => {
    const cwd = folder('bad', { '.env': 'PORT=not-a-port\nREGISTRATION=maybe\n' });
    expect(() => loadConfig(readEnvironment({ APP_SECRET: SECRET }, cwd))).toThrow(/PORT[\s\S]*REGISTRATION/);
  });

  it('takes DEFAULT_PHONE_COUNTRY as a two-letter country code (US unless set) and refuses anything else', () => {
    expect(loadConfig({ APP_SECRET: SECRET }).DEFAULT_PHONE_COUNTRY).toBe('US');
    expect(loadConfig({ APP_SECRET: SECRET, DEFAULT_PHONE_COUNTRY: ' gb ' }).DEFAULT_PHONE_COUNTRY).toBe('GB');
    expect(() => loadConfig({ APP_SECRET: SECRET, DEFAULT_PHONE_COUNTRY: 'Germany' })).toThrow(/DEFAULT_PHONE_COUNTRY must be a two-letter country code/);
    expect(() => loadConfig({ APP_SECRET: SECRET, DEFAULT_PHONE_COUNTRY: 'XX' })).toThrow(/DEFAULT_PHONE_COUNTRY/);
  });
});
