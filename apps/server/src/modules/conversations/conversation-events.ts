import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';

/** A comment line every 15 s keeps proxies from closing an idle stream. */
export const KEEP_ALIVE_MS = 15_000;

/**
 * Open streams allowed per client address. Web chats are reachable by anyone with their uuid, so without a
 * cap one client could hold any number of connections open; a person with many tabs stays far below it.
 */
export const STREAMS_PER_CLIENT = 30;

/** Counts open streams per client address; `acquire` answers null when the client is at the cap. */
export function createStreamLimiter(max = STREAMS_PER_CLIENT) {
  const open = new Map<string, number>();
  return {
    acquire(client: string): (() => void) | null {
      const count = open.get(client) ?? 0;
      if (count >= max) return null;
      open.set(client, count + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (open.get(client) ?? 1) - 1;
        if (left <= 0) open.delete(client);
        else open.set(client, left);
      };
    },
  };
}

/**
 * Streams `conversation.changed` events of one conversation as Server-Sent Events. The web invalidates its
 * query on each event and keeps polling every 10 s as a fallback (events are per process: another
 * instance's changes reach the page through the poll).
 */
export function streamConversationEvents(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  conversation: { id: number; uuid: string },
  open: Set<() => void>,
  release: () => void,
): void {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // nginx buffers responses unless told otherwise.
    'x-accel-buffering': 'no',
  });
  res.write(`retry: 3000\n\nevent: ready\ndata: ${JSON.stringify({ uuid: conversation.uuid })}\n\n`);

  const unsubscribe = ctx.events.on('conversation.changed', (event) => {
    if (event.conversationId !== conversation.id) return;
    res.write(`event: conversation.changed\ndata: ${JSON.stringify({ uuid: conversation.uuid })}\n\n`);
  });
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  keepAlive.unref();

  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(keepAlive);
    unsubscribe();
    release();
    open.delete(close);
    if (!res.writableEnded) res.end();
  };
  open.add(close);
  request.raw.on('close', close);
  res.on('error', close);
}

/** Ends every open stream when the server shuts down, so closing does not wait for browsers. */
export function closeStreamsOnShutdown(app: FastifyInstance, open: Set<() => void>): void {
  app.addHook('preClose', async () => {
    for (const close of [...open]) close();
  });
}
