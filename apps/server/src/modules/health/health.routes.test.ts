import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/use-test-app.ts';
import { buildUser } from '../../test/factories.ts';
import { multipartPayload } from '../../test/multipart.ts';
import { recordingStorage } from '../../lib/recording-storage.ts';
import { WRITE_PROBE_FILE } from './storage-room.ts';

describe('GET /api/health and /api/health/ready', () => {
  const t = useTestApp({ env: { STORAGE_MIN_FREE_BYTES: '0' } });

  it('answers ready when the database takes a write and the storage has room', async () => {
    const res = await t.request({ method: 'GET', url: '/api/health/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready', checks: { database: 'ok', storage: 'ok' } });
  });

  it('fails readiness (503) but not liveness when the database refuses writes', async () => {
    // An injected database failure: every write to the probe's table is refused, as on a read-only or full
    // database, while reads still work.
    await t.ctx.db.execute(sql`
      create function refuse_writes() returns trigger language plpgsql as $$
      begin raise exception 'could not extend file: No space left on device'; end $$`);
    await t.ctx.db.execute(sql`create trigger refuse_writes before insert or update on rate_counters for each row execute function refuse_writes()`);
    try {
      const ready = await t.request({ method: 'GET', url: '/api/health/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({
        error: 'Not ready: the database cannot take a write.',
        code: 'NOT_READY',
        checks: { database: 'failing', storage: 'ok' },
      });
      const live = await t.request({ method: 'GET', url: '/api/health' });
      expect(live.statusCode).toBe(200);
    } finally {
      await t.ctx.db.execute(sql`drop trigger refuse_writes on rate_counters`);
      await t.ctx.db.execute(sql`drop function refuse_writes()`);
    }
    expect((await t.request({ method: 'GET', url: '/api/health/ready' })).statusCode).toBe(200);
  });

  it('fails readiness while writes to the storage fail, and recovers', async () => {
    // An injected failure: a directory where the probe writes its file makes the write fail (EISDIR), as a
    // read-only or broken disk would.
    const blocker = path.join(recordingStorage(t.ctx).incomingDir, WRITE_PROBE_FILE);
    mkdirSync(blocker);
    try {
      const ready = await t.request({ method: 'GET', url: '/api/health/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({
        error: 'Not ready: the storage cannot be written.',
        code: 'NOT_READY',
        checks: { database: 'ok', storage: 'failing' },
      });
    } finally {
      rmSync(blocker, { recursive: true });
    }
    expect((await t.request({ method: 'GET', url: '/api/health/ready' })).statusCode).toBe(200);
  });
});

describe('readiness with a storage below its minimum free space', () => {
  // More free space than any test machine has: the storage counts as full.
  const t = useTestApp({ env: { STORAGE_MIN_FREE_BYTES: String(2 ** 52) } });

  it('fails readiness with the free and minimum space; liveness stays ok', async () => {
    const ready = await t.request({ method: 'GET', url: '/api/health/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ code: 'NOT_READY', checks: { database: 'ok', storage: 'failing' } });
    expect(ready.json().error).toMatch(/^Not ready: the storage has \d+ MiB free, below the minimum of \d+ MiB\.$/);
    expect((await t.request({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
  });

  it('refuses uploads with 507 before reading them, so the disk never fills under the database', async () => {
    const user = await buildUser(t.ctx);
    const body = multipartPayload([{ name: 'call.mp3', type: 'audio/mpeg', data: Buffer.alloc(1024) }]);
    const res = await t.request({ method: 'POST', url: '/api/call-recording/upload', as: user.cookie, payload: body.payload, headers: body.headers });
    expect(res.statusCode).toBe(507);
    expect(res.headers.connection).toBe('close');
    expect(res.json()).toEqual({
      error: 'The server is running out of storage space, so uploads are paused. Please try again later or tell your administrator.',
      code: 'INSUFFICIENT_STORAGE',
    });
  });
});
