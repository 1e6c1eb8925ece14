import http from 'node:http';
import { signV4 } from '../../lib/storage.ts';
import { listenOnLoopback } from './loopback.ts';

/**
 * A loopback S3-compatible object store (path-style: /{bucket}/{key}) for PUT, HEAD, GET (with Range) and
 * DELETE. It checks each request's SigV4 Authorization header against its own credentials and answers
 * S3's XML errors (403 SignatureDoesNotMatch, 404 NoSuchKey, 416 InvalidRange).
 */
export interface S3Fake {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  objects: Map<string, { body: Buffer; contentType: string }>;
  close(): Promise<void>;
}

const xmlError = (res: http.ServerResponse, status: number, code: string, message: string) => {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`);
};

export async function startS3Fake(): Promise<S3Fake> {
  const fake = {
    bucket: 'recordings',
    region: 'eu-test-1',
    accessKeyId: 'AKIAFAKEFAKEFAKE',
    secretAccessKey: 'fake/secret/key/for/tests',
    objects: new Map<string, { body: Buffer; contentType: string }>(),
  };
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const auth = req.headers.authorization ?? '';
    const amzDate = String(req.headers['x-amz-date'] ?? '');
    const date = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
    if (!date) return xmlError(res, 403, 'AccessDenied', 'Missing x-amz-date');
    const signedHeaders = /SignedHeaders=([^,]+)/.exec(auth)?.[1].split(';') ?? [];
    const expected = signV4({
      method: req.method ?? 'GET',
      url,
      headers: Object.fromEntries(signedHeaders.filter((h) => !['host', 'x-amz-date', 'x-amz-content-sha256'].includes(h)).map((h) => [h, String(req.headers[h] ?? '')])),
      extraSignedHeaders: signedHeaders.filter((h) => !['host', 'x-amz-date', 'x-amz-content-sha256'].includes(h)),
      payloadHash: String(req.headers['x-amz-content-sha256'] ?? ''),
      region: fake.region,
      accessKeyId: fake.accessKeyId,
      secretAccessKey: fake.secretAccessKey,
      date: new Date(Date.UTC(+date[1], +date[2] - 1, +date[3], +date[4], +date[5], +date[6])),
    }).authorization;
    if (auth !== expected) return xmlError(res, 403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');

    const [, bucket, ...rest] = url.pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    if (bucket !== fake.bucket) return xmlError(res, 404, 'NoSuchBucket', 'The specified bucket does not exist');
    const object = fake.objects.get(key);
    switch (req.method) {
      case 'PUT': {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const body = Buffer.concat(chunks);
        if (Number(req.headers['content-length']) !== body.length) return xmlError(res, 400, 'IncompleteBody', 'Content-Length mismatch');
        fake.objects.set(key, { body, contentType: String(req.headers['content-type'] ?? 'binary/octet-stream') });
        res.writeHead(200, { etag: '"fake"' });
        return res.end();
      }
      case 'HEAD':
        if (!object) return xmlError(res, 404, 'NoSuchKey', 'The specified key does not exist.');
        res.writeHead(200, { 'content-length': object.body.length, 'content-type': object.contentType });
        return res.end();
      case 'GET': {
        if (!object) return xmlError(res, 404, 'NoSuchKey', 'The specified key does not exist.');
        const range = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range ?? ''));
        if (range) {
          const start = Number(range[1]);
          const end = Math.min(Number(range[2]), object.body.length - 1);
          if (start >= object.body.length) return xmlError(res, 416, 'InvalidRange', 'The requested range is not satisfiable');
          res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${object.body.length}`, 'content-length': end - start + 1 });
          return res.end(object.body.subarray(start, end + 1));
        }
        res.writeHead(200, { 'content-length': object.body.length, 'content-type': object.contentType });
        return res.end(object.body);
      }
      case 'DELETE':
        fake.objects.delete(key);
        res.writeHead(204);
        return res.end();
      default:
        return xmlError(res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
    }
  });
  const url = await listenOnLoopback(server);
  return {
    ...fake,
    endpoint: url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
