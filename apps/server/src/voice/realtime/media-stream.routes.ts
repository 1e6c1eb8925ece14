import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { AppContext } from '../../context.ts';
import { MediaStreamBridge } from './bridge.ts';

export const MEDIA_STREAM_PATH = '/api/voice/media-stream';
/** Streams that have not yet sent a verified `start` (each waits at most START_TIMEOUT_MS). */
export const MAX_UNVERIFIED_STREAMS = 50;

/**
 * The WebSocket Twilio's `<Connect><Stream url="wss://…/api/voice/media-stream">` opens (docs/voice.md
 * "Realtime"). The upgrade is accepted; its X-Twilio-Signature is checked when `start` names the conversation
 * (and so the account whose Auth Token signed it), before anything is opened or stored. The conversation comes
 * from the URL's binding (signed with APP_SECRET, per call, expiring), never from the unsigned `<Parameter>`,
 * and the binding's CallSid must be the one `start` reports.
 */
export async function mediaStreamRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  // Twilio's frames are a few hundred bytes; anything near this is not Twilio.
  await app.register(websocket, { options: { maxPayload: 64 * 1024, perMessageDeflate: false } });
  const bridges = new Set<MediaStreamBridge>();

  // `/*` is the call's binding (voice/urls.ts streamBinding); the bare path is refused at `start`.
  const open = (socket: WebSocket, request: FastifyRequest) => {
    // Anyone can open the socket; until `start` proves it is Twilio, only a few may wait (1013: try again later).
    let unverified = 0;
    for (const open of bridges) if (!open.verified) unverified += 1;
    if (unverified >= MAX_UNVERIFIED_STREAMS) {
      socket.close(1013, 'Too many streams');
      return;
    }
    const signature = request.headers['x-twilio-signature'];
    const bridge = new MediaStreamBridge(
      ctx,
      socket,
      { signature: typeof signature === 'string' ? signature : undefined, url: request.url, binding: (request.params as { '*'?: string })['*'] },
      // Kept until its last writes have settled, so closing the server can wait for them.
      (closed) => void closed.drained().then(() => bridges.delete(closed)),
    );
    bridges.add(bridge);
  };
  app.get(MEDIA_STREAM_PATH, { websocket: true, schema: { hide: true } }, open);
  // A wildcard: the binding is longer than a route parameter may be (maxParamLength 100).
  app.get(`${MEDIA_STREAM_PATH}/*`, { websocket: true, schema: { hide: true } }, open);

  // On shutdown, calls end cleanly and their last transcript and usage writes land before the database closes.
  app.addHook('preClose', async () => {
    const open = [...bridges];
    for (const bridge of open) bridge.shutdown();
    await Promise.all(open.map((b) => b.drained()));
  });
}
