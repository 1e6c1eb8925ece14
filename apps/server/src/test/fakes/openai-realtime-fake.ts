import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';

/**
 * A loopback stand-in for the OpenAI Realtime API (GA interface, third-party-facts.md): a WebSocket at
 * `/v1/realtime?model=…` that refuses the upgrade with 401 and OpenAI's error body unless
 * `Authorization: Bearer <key>` matches, and with 400 when the model query is missing. Each accepted
 * connection is a FakeRealtimeSession: it answers `session.created` at once, `session.updated` to each
 * `session.update` and `conversation.item.truncated` to each truncate, records every client event, and
 * lets the test script the server side (audio deltas, speech_started, transcripts, function calls,
 * response.done with usage).
 */
export interface RealtimeClientEventRecord {
  type: string;
  [key: string]: unknown;
}

const eventId = () => `event_${randomBytes(8).toString('hex')}`;

export class FakeRealtimeSession {
  readonly events: RealtimeClientEventRecord[] = [];
  readonly model: string;
  closed = false;
  private waiters: { match: (e: RealtimeClientEventRecord) => boolean; resolve: (e: RealtimeClientEventRecord) => void }[] = [];
  private closeWaiters: (() => void)[] = [];
  private sequence = 0;

  constructor(
    readonly socket: WebSocket,
    model: string,
  ) {
    this.model = model;
    socket.on('message', (data) => {
      const event = JSON.parse(data.toString()) as RealtimeClientEventRecord;
      this.events.push(event);
      if (event.type === 'session.update') this.send({ type: 'session.updated', session: event.session });
      if (event.type === 'conversation.item.truncate') {
        this.send({ type: 'conversation.item.truncated', item_id: event.item_id, content_index: event.content_index, audio_end_ms: event.audio_end_ms });
      }
      for (const waiter of [...this.waiters]) {
        if (waiter.match(event)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(event);
        }
      }
    });
    socket.on('close', () => {
      this.closed = true;
      for (const resolve of this.closeWaiters.splice(0)) resolve();
    });
    this.send({
      type: 'session.created',
      session: { type: 'realtime', id: `sess_${randomBytes(8).toString('hex')}`, object: 'realtime.session', model, output_modalities: ['audio'] },
    });
  }

  /** Client events of this type, in arrival order. */
  of(type: string): RealtimeClientEventRecord[] {
    return this.events.filter((e) => e.type === type);
  }

  /** Resolves with the `nth` (1-based) client event of this type, now or when it arrives. */
  waitFor(type: string, nth = 1): Promise<RealtimeClientEventRecord> {
    const seen = this.of(type);
    if (seen.length >= nth) return Promise.resolve(seen[nth - 1]);
    let count = seen.length;
    return new Promise((resolve) => {
      this.waiters.push({ match: (e) => e.type === type && ++count >= nth, resolve });
    });
  }

  /** Resolves once `count` input_audio_buffer.append events have arrived. */
  waitForAppends(count: number): Promise<RealtimeClientEventRecord> {
    return this.waitFor('input_audio_buffer.append', count);
  }

  whenClosed(): Promise<void> {
    return this.closed ? Promise.resolve() : new Promise((resolve) => this.closeWaiters.push(resolve));
  }

  send(event: Record<string, unknown>): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ event_id: eventId(), ...event }));
  }

  nextId(prefix: string): string {
    this.sequence += 1;
    return `${prefix}_${this.sequence}${randomBytes(4).toString('hex')}`;
  }

  responseCreated(responseId: string): void {
    this.send({ type: 'response.created', response: { id: responseId, object: 'realtime.response', status: 'in_progress', output: [] } });
  }

  audioDelta(responseId: string, itemId: string, audio: Buffer | string): void {
    const delta = typeof audio === 'string' ? audio : audio.toString('base64');
    this.send({ type: 'response.output_audio.delta', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, delta });
  }

  outputTranscript(responseId: string, itemId: string, transcript: string): void {
    this.send({ type: 'response.output_audio_transcript.done', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, transcript });
  }

  speechStarted(itemId: string, audioStartMs = 0): void {
    this.send({ type: 'input_audio_buffer.speech_started', item_id: itemId, audio_start_ms: audioStartMs });
  }

  speechStopped(itemId: string, audioEndMs = 0): void {
    this.send({ type: 'input_audio_buffer.speech_stopped', item_id: itemId, audio_end_ms: audioEndMs });
  }

  inputTranscript(itemId: string, transcript: string): void {
    this.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: itemId, content_index: 0, transcript });
  }

  functionCall(responseId: string, name: string, args: Record<string, unknown> = {}): string {
    const callId = this.nextId('call');
    this.send({
      type: 'response.function_call_arguments.done',
      response_id: responseId,
      item_id: this.nextId('item'),
      output_index: 0,
      call_id: callId,
      name,
      arguments: JSON.stringify(args),
    });
    return callId;
  }

  responseDone(responseId: string, usage?: Record<string, unknown>): void {
    this.send({ type: 'response.done', response: { id: responseId, object: 'realtime.response', status: 'completed', output: [], usage: usage ?? null } });
  }

  /** The server ends the session (e.g. OpenAI closing on an internal error). */
  close(code = 1011): void {
    this.socket.close(code, 'server error');
  }
}

export interface OpenAiRealtimeFake {
  /** Use as OPENAI_REALTIME_URL (ws://127.0.0.1:port/v1/realtime). */
  url: string;
  apiKey: string;
  sessions: FakeRealtimeSession[];
  /** Resolves with the `nth` (1-based) session, now or when it connects. */
  session(nth?: number): Promise<FakeRealtimeSession>;
  /** Upgrade attempts refused (bad key or model), for assertions. */
  refused: number;
  /** The next upgrade is refused with this HTTP status and OpenAI's error body (e.g. 401, 429, 500). */
  refuseNext(status: number): void;
  env(extra?: Record<string, string>): Record<string, string>;
  close(): Promise<void>;
}

export async function startOpenAiRealtimeFake(options: { apiKey?: string } = {}): Promise<OpenAiRealtimeFake> {
  const apiKey = options.apiKey ?? 'sk-fake-realtime-key';
  const sessions: FakeRealtimeSession[] = [];
  const scriptedRefusals: number[] = [];
  const waiters: { nth: number; resolve: (s: FakeRealtimeSession) => void }[] = [];
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const server: Server = createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'Not found', type: 'invalid_request_error', code: null } }));
  });
  const fake: OpenAiRealtimeFake = {
    url: '',
    apiKey,
    sessions,
    refused: 0,
    refuseNext: (status) => void scriptedRefusals.push(status),
    session: (nth = 1) =>
      sessions.length >= nth ? Promise.resolve(sessions[nth - 1]) : new Promise((resolve) => waiters.push({ nth, resolve })),
    env: (extra = {}) => ({ OPENAI_API_KEY: apiKey, OPENAI_REALTIME_URL: fake.url, REALTIME_MODEL: 'gpt-realtime', ...extra }),
    close: async () => {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const refuse = (socket: Duplex, status: number, message: string, code: string | null) => {
    fake.refused += 1;
    const body = JSON.stringify({ error: { message, type: 'invalid_request_error', code, param: null } });
    const reason = { 401: 'Unauthorized', 429: 'Too Many Requests', 500: 'Internal Server Error' }[status] ?? 'Bad Request';
    socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname !== '/v1/realtime') return refuse(socket, 400, `Invalid URL (GET ${url.pathname})`, null);
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return refuse(socket, 401, 'Incorrect API key provided.', 'invalid_api_key');
    }
    // GA interface: no beta header; a client still sending it speaks the old event names.
    if (req.headers['openai-beta']) return refuse(socket, 400, 'The beta interface is not supported by this fake.', null);
    const model = url.searchParams.get('model');
    if (!model) return refuse(socket, 400, "Missing required parameter: 'model'.", 'missing_required_parameter');
    const scripted = scriptedRefusals.shift();
    if (scripted) return refuse(socket, scripted, scripted === 429 ? 'Rate limit reached.' : 'The server had an error.', null);
    wss.handleUpgrade(req, socket, head, (ws) => {
      const session = new FakeRealtimeSession(ws, model);
      sessions.push(session);
      for (const waiter of [...waiters]) {
        if (sessions.length >= waiter.nth) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(sessions[waiter.nth - 1]);
        }
      }
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/realtime`;
  return fake;
}
