import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// The plumbing every loopback fake repeats: read a request's body, listen on 127.0.0.1, and close at once.

/** The whole body of a request, as sent. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Listens on loopback (`port` 0: a free one) and answers the base URL, `http://127.0.0.1:<port>`. */
export async function listenOnLoopback(server: Server, port = 0): Promise<string> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes the server without waiting for keep-alive connections (a client's pooled socket would hold it open). */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
