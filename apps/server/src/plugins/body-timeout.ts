import type { FastifyInstance } from 'fastify';
import type { ErrorCode } from '@sales-agent/shared/error-codes';
import type { AppConfig } from '../config/env.ts';

/**
 * The slow-body cut-off (docs/security.md "Slow requests", docs/deployment.md): a client that opens a request
 * and trickles its body would otherwise hold a connection (and a request's memory) for ever — Fastify turns
 * Node's own request timeout off. Two rules, checked on a timer while a body is still arriving:
 * - a body other than an upload (JSON, forms, webhooks: at most 1 MB) must be complete within
 *   REQUEST_BODY_TIMEOUT_MS of the request's start;
 * - an upload (multipart/form-data: call recordings, up to gigabytes on a slow line) has no total limit, but
 *   must keep moving: at least UPLOAD_MIN_BYTES in every UPLOAD_IDLE_TIMEOUT_MS window, so a trickle of a few
 *   bytes is cut while any real connection uploads on.
 * Progress is the socket's `bytesRead` (reading the stream ourselves would take data from the parser). A cut
 * request gets 408 `REQUEST_TIMEOUT` with `Connection: close` when no answer has started, and its socket is
 * closed.
 */
export function registerBodyTimeout(
  app: FastifyInstance,
  config: Pick<AppConfig, 'REQUEST_BODY_TIMEOUT_MS' | 'UPLOAD_IDLE_TIMEOUT_MS' | 'UPLOAD_MIN_BYTES'>,
): void {
  app.addHook('onRequest', async (request, reply) => {
    const raw = request.raw;
    const length = Number(raw.headers['content-length'] ?? 0);
    const hasBody = length > 0 || raw.headers['transfer-encoding'] !== undefined;
    if (!hasBody || raw.complete) return;
    const socket = raw.socket;
    const upload = /^multipart\/form-data/i.test(raw.headers['content-type'] ?? '');
    const window = upload ? config.UPLOAD_IDLE_TIMEOUT_MS : config.REQUEST_BODY_TIMEOUT_MS;
    const started = Date.now();
    let lastBytes = socket.bytesRead;
    let done = false;

    const cut = (reason: string) => {
      stop();
      request.log.warn({ url: request.url.split('?')[0], reason }, 'request body too slow; connection closed');
      if (!reply.raw.headersSent && socket.writable) {
        const body = JSON.stringify({
          error: upload
            ? 'The upload stalled: too little data arrived for too long. Please try again on a steadier connection.'
            : 'The request body took too long to arrive. Please try again.',
          code: 'REQUEST_TIMEOUT' satisfies ErrorCode,
        });
        socket.end(
          `HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      }
      // Whatever the parser or handler was waiting for ends here.
      setImmediate(() => socket.destroy());
    };
    const check = () => {
      if (done) return;
      if (raw.complete || socket.destroyed) return stop();
      if (!upload) {
        if (Date.now() - started >= config.REQUEST_BODY_TIMEOUT_MS) cut(`body not complete after ${config.REQUEST_BODY_TIMEOUT_MS} ms`);
        return;
      }
      const now = socket.bytesRead;
      if (now - lastBytes < config.UPLOAD_MIN_BYTES) return cut(`fewer than ${config.UPLOAD_MIN_BYTES} bytes in ${window} ms`);
      lastBytes = now;
    };
    const timer = setInterval(check, window);
    timer.unref();
    function stop() {
      done = true;
      clearInterval(timer);
    }
    raw.once('end', stop);
    raw.once('close', stop);
    reply.raw.once('close', stop);
  });
}
