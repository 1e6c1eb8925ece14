import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { users } from '../db/schema/index.ts';
import { useTestApp } from '../test/use-test-app.ts';
import { captureLogger } from '../test/capture-logger.ts';
import { loggerOptions, redactUrl } from './logging.ts';

const t = useTestApp();

describe('logging of database errors', () => {
  it("logs a failed query's statement and error, never its parameter values", async () => {
    const secret = `password-hash-${'s3cr3t'.repeat(2000)}`;
    await t.ctx.db.insert(users).values({ email: 'dup@example.com', passwordHash: 'first' });
    const err = await t.ctx.db
      .insert(users)
      .values({ email: 'dup@example.com', passwordHash: secret })
      .then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    // The driver's error itself carries the parameters: this is what used to be logged.
    expect(String((err as Error).message)).toContain('s3cr3t');

    const { log, lines } = captureLogger();
    log.error({ err }, 'unhandled error');
    log.warn({ err: new Error('job failed', { cause: err }) }, 'job failed');
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line).not.toContain('s3cr3t');
      expect(line).not.toContain('dup@example.com');
      expect(line.length).toBeLessThan(4000);
    }
    const first = JSON.parse(lines[0]);
    expect(first.err.query).toMatch(/^insert into "users"/);
    expect(first.err.message).toMatch(/^Failed query: insert into "users".*: duplicate key value violates unique constraint/s);
    expect(first.err.cause).toMatchObject({ code: '23505', constraint: expect.stringContaining('email') });
    expect(first.err.paramCount).toBeGreaterThan(1);
    expect(JSON.parse(lines[1]).err.cause.query).toMatch(/^insert into "users"/);
  });
});

describe('redaction', () => {
  it('replaces secrets in logged objects, headers and query strings', async () => {
    const { log, lines } = captureLogger();
    log.info(
      {
        password: 'pw-1',
        body: { apiKey: 'key-2', nested: { accessToken: 'tok-3' } },
        req: { headers: { authorization: 'Bearer tok-4', 'x-hub-signature-256': 'sha256=5', 'x-twilio-signature': 'sig-6' } },
      },
      'something',
    );
    for (const secret of ['pw-1', 'key-2', 'tok-3', 'tok-4', 'sha256=5', 'sig-6']) expect(lines[0]).not.toContain(secret);
    expect(lines[0]).toContain('[redacted]');
  });

  it("keeps secret query parameters out of the request log line", async () => {
    const lines: string[] = [];
    const app = Fastify({
      logger: {
        ...(loggerOptions({ LOG_LEVEL: 'info' }) as object),
        stream: { write: (line: string) => lines.push(line) },
      },
    });
    app.get('/hook', async () => ({ ok: true }));
    await app.inject({ url: '/hook?hub.mode=subscribe&hub.verify_token=vt-7&access_token=at-8&page=2', headers: { authorization: 'Bearer tok-9', cookie: 'sa_session=c-10' } });
    await app.close();
    const all = lines.join('\n');
    for (const secret of ['vt-7', 'at-8', 'tok-9', 'c-10']) expect(all).not.toContain(secret);
    expect(all).toContain('/hook?hub.mode=subscribe&hub.verify_token=[redacted]&access_token=[redacted]&page=2');
  });

  it('redactUrl leaves URLs without secrets alone', () => {
    expect(redactUrl('/api/conversation/list?page=2&phase=1')).toBe('/api/conversation/list?page=2&phase=1');
    expect(redactUrl('/cb?code=abc&state=xyz')).toBe('/cb?code=[redacted]&state=[redacted]');
  });
});
