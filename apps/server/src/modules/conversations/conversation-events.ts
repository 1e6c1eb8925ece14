import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { SESSION_COOKIE } from '../../plugins/auth.ts';
import type { InboxViewer } from './inbox-access.ts';

/** A comment line every 15 s keeps proxies from closing an idle stream. */
export const KEEP_ALIVE_MS = 15_000;

/**
 * Open streams allowed per signed-in session, and per web chat for anonymous visitors (who have no session:
 * their chat's uuid is what identifies them). Web chats are reachable by anyone with their uuid, so without a
 * cap one client could hold any number of connections open; a person with many tabs stays far below it.
 */
export const STREAMS_PER_CLIENT = 30;
/**
 * A backstop per client address, ten times higher: many people behind one office NAT each have their own
 * session cap, while one address opening chat after chat still meets a bound.
 */
export const STREAMS_PER_ADDRESS = 300;

/**
 * Takes a live-stream slot for this request's session (or visitor) and address; null when either is at its
 * cap. The counts are shared by every instance on PostgreSQL (lib/limits.ts).
 */
export async function acquireStreamSlot(ctx: AppContext, request: FastifyRequest, uuid: string): Promise<(() => void) | null> {
  const token = request.cookies[SESSION_COOKIE];
  const identity = request.actor && token ? `session:${createHash('sha256').update(token).digest('hex').slice(0, 32)}` : `chat:${uuid}`;
  return ctx.limits.acquire([
    { key: identity, max: STREAMS_PER_CLIENT },
    { key: `address:${request.ip}`, max: STREAMS_PER_ADDRESS },
  ]);
}

/**
 * Streams `conversation.changed` events of one conversation as Server-Sent Events. The web invalidates its
 * query on each event and keeps polling every 10 s as a fallback. With PostgreSQL the event bus carries other
 * instances' changes too (LISTEN/NOTIFY, lib/events.ts).
 */
export function streamConversationEvents(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  conversation: { id: number; uuid: string },
  open: Set<() => void>,
  release: () => void,
): void {
  openEventStream(ctx, request, reply, { uuid: conversation.uuid }, open, release, (send) =>
    ctx.events.on('conversation.changed', (event) => {
      if (event.conversationId === conversation.id) send({ uuid: conversation.uuid });
    }),
  );
}

/** Ends every open stream when the server shuts down, so closing does not wait for browsers. */
export function closeStreamsOnShutdown(app: FastifyInstance, open: Set<() => void>): void {
  app.addHook('preClose', async () => {
    for (const close of [...open]) close();
  });
}

/**
 * The inbox's stream (issue 12): `conversation.changed` of every conversation the viewer may see, so the
 * list shows new messages and phase changes without a reload. An ADMIN sees all; a NORMAL user only
 * conversations of accounts granted to them, checked per event against the stream's cached grant set
 * (inbox-access.ts: re-read when the viewer's grants change, so a grant removed mid-stream stops the events
 * from the next one on, without a query per event). The viewer's own read marks (`conversation.read`, from any of their devices) come as the
 * same event, so a conversation read on the phone shows read on the desktop too. The data is the uuid alone:
 * the web refetches the list and the open conversation.
 */
export function streamListEvents(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  viewer: InboxViewer,
  open: Set<() => void>,
  release: () => void,
): void {
  openEventStream(ctx, request, reply, {}, open, release, (send) => {
    const offChanged = ctx.events.on('conversation.changed', (event) => {
      void viewer.maySee(event.conversationId).then(
        (ok) => {
          if (ok) send({ uuid: event.uuid });
        },
        (err: unknown) => ctx.log.warn({ err }, 'inbox stream: access check failed'),
      );
    });
    const offRead = ctx.events.on('conversation.read', (event) => {
      if (event.userId === viewer.userId) send({ uuid: event.uuid });
    });
    const offNotified = ctx.events.on('notification.created', (event) => {
      if (event.userId === viewer.userId) send({ uuid: event.uuid });
    });
    return () => {
      offChanged();
      offRead();
      offNotified();
      viewer.close();
    };
  });
}

/**
 * One Server-Sent Events response: headers, the `ready` event, a keep-alive comment every 15 s, and
 * `conversation.changed` events as `subscribe` decides (it returns its unsubscribe). Closing (browser gone, error, server shutdown) stops the
 * keep-alive, unsubscribes, gives the stream slot back and ends the response, once.
 */
function openEventStream(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  ready: Record<string, string>,
  open: Set<() => void>,
  release: () => void,
  subscribe: (send: (data: { uuid: string }) => void) => () => void,
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
  res.write(`retry: 3000\n\nevent: ready\ndata: ${JSON.stringify(ready)}\n\n`);
  let closed = false;
  const send = (data: { uuid: string }) => {
    if (!closed) res.write(`event: conversation.changed\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const unsubscribe = subscribe(send);
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  keepAlive.unref();
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
