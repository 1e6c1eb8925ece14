import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useFake, useTestApp, useUser } from '../test/use-test-app.ts';
import { startS3Fake } from '../test/fakes/s3-fake.ts';
import { multipartPayload } from '../test/multipart.ts';
import { loadConfig } from '../config/env.ts';
import { createStorage, LocalStorage, newStorageKey, signV4 } from './storage.ts';

const WAV = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures/tone-2s.wav'));

describe('signV4', () => {
  it('matches AWS’s published example (GET Object with a Range header)', () => {
    // https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html, "Example: GET Object"
    const headers = signV4({
      method: 'GET',
      url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
      headers: { range: 'bytes=0-9' },
      extraSignedHeaders: ['range'],
      payloadHash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      region: 'us-east-1',
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      date: new Date('2013-05-24T00:00:00Z'),
    });
    expect(headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });
});

describe('LocalStorage', () => {
  it('generates uuid keys and refuses any other key, so no path can be smuggled in', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'storage-test-'));
    try {
      const storage = new LocalStorage(root);
      expect(newStorageKey('MP3')).toMatch(/^[0-9a-f-]{36}\.mp3$/);
      expect(() => newStorageKey('../x')).toThrow();
      await expect(storage.read('../../etc/passwd')).rejects.toThrow('Refusing storage key');
      await expect(storage.remove('x.mp3')).rejects.toThrow('Refusing storage key');
      const key = newStorageKey('wav');
      const incoming = path.join(storage.incomingDir, 'upload.part');
      writeFileSync(incoming, WAV);
      await storage.putFile(key, incoming);
      expect(await storage.size(key)).toBe(WAV.length);
      expect(readFileSync(path.join(root, key)).equals(WAV)).toBe(true);
      await storage.remove(key);
      expect(await storage.size(key)).toBeNull();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('createStorage', () => {
  it('removes incoming files left by uploads cut off more than a day ago, and keeps fresh ones', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'storage-sweep-'));
    try {
      const incoming = path.join(root, '.incoming');
      mkdirSync(incoming, { recursive: true });
      writeFileSync(path.join(incoming, 'old.part'), 'x');
      writeFileSync(path.join(incoming, 'new.part'), 'x');
      const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
      utimesSync(path.join(incoming, 'old.part'), twoDaysAgo, twoDaysAgo);
      const storage = createStorage(loadConfig({ APP_SECRET: 'x'.repeat(32), DATA_DIR: root, STORAGE_DIR: root }));
      expect(storage.kind).toBe('local');
      expect(existsSync(path.join(incoming, 'old.part'))).toBe(false);
      expect(existsSync(path.join(incoming, 'new.part'))).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('S3Storage timeouts', () => {
  it('fails a request to an object store that accepts the connection but never answers, instead of hanging', async () => {
    const { createServer } = await import('node:net');
    const sockets: import('node:net').Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const { S3Storage } = await import('./storage.ts');
    const storage = new S3Storage({
      bucket: 'b',
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      accessKeyId: 'k',
      secretAccessKey: 's',
      incomingDir: mkdtempSync(path.join(tmpdir(), 's3-timeout-')),
      timeoutMs: 200,
    });
    try {
      await expect(storage.size(newStorageKey('wav'))).rejects.toThrow(/did not answer HEAD/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('S3-compatible storage (S3_BUCKET set)', () => {
  const s3 = useFake(() => startS3Fake());
  const t = useTestApp({
    env: () => ({
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_REGION: s3.region,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    }),
  });
  const user = useUser(t);

  it('uploads to the bucket with signed requests, streams ranges back and deletes the object', async () => {
    const body = multipartPayload([{ name: 'call.wav', type: 'audio/wav', data: WAV }]);
    const up = await t.request({ method: 'POST', url: '/api/call-recording/upload', as: user.cookie, payload: body.payload, headers: body.headers });
    expect(up.statusCode, up.body).toBe(201);
    const { id } = up.json().recordings[0];
    expect([...s3.objects.keys()]).toHaveLength(1);
    const [key, object] = [...s3.objects.entries()][0];
    expect(key).toMatch(/^[0-9a-f-]{36}\.wav$/);
    expect(object.contentType).toBe('audio/wav');
    expect(object.body.equals(WAV)).toBe(true);

    const whole = await t.request({ method: 'GET', url: `/api/call-recording/${id}/stream`, as: user.cookie });
    expect(whole.statusCode).toBe(200);
    expect(whole.rawPayload.equals(WAV)).toBe(true);
    const part = await t.request({ method: 'GET', url: `/api/call-recording/${id}/download`, as: user.cookie, headers: { range: 'bytes=44-143' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 44-143/${WAV.length}`);
    expect(part.rawPayload.equals(WAV.subarray(44, 144))).toBe(true);

    const del = await t.request({ method: 'DELETE', url: `/api/call-recording/${id}`, as: user.cookie });
    expect(del.statusCode).toBe(200);
    expect(s3.objects.size).toBe(0);
  });
});
