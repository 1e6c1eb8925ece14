/**
 * Voice relay latency: the time one audio frame takes through the realtime bridge (Twilio Media Stream ↔
 * OpenAI Realtime, apps/server/src/voice/realtime), in both directions, with BENCH_CALLS (default 20)
 * concurrent simulated calls — side by side with a minimal frame-forwarding relay (the floor: a WebSocket
 * server that opens one upstream socket per connection and forwards every frame unchanged, no parsing).
 * Also the relay process's CPU per call. Not part of `npm test`.
 *
 *   node --import tsx bench/voice-relay.ts
 *
 * Layout: this process plays Twilio (BENCH_CALLS media-stream clients, one 160-byte μ-law frame every 20 ms
 * each, marks echoed at once as a fast-playing Twilio would) and OpenAI (a Realtime-speaking WebSocket
 * server that sends each session a 100 ms audio delta every 100 ms). The relay under test runs in a child
 * process (the real app with PGlite in memory, or the floor), so its CPU is measured alone and its event loop
 * is not shared with the load generator. Each frame carries an 8-byte tag; latency = arrival − send on the
 * same clock (this process), so it includes two loopback hops and this process's own scheduling — the same
 * for both relays, which is why they are compared side by side.
 *
 * BENCH_ROUNDS (default 3) rounds per relay, alternating floor and bridge, of BENCH_SECONDS (default 10)
 * measured after 2 s of warm-up each. The bridge's app uses PostgreSQL at
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; a fresh database, dropped after),
 * or PGlite in memory with BENCH_DB=pglite.
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import twilio from 'twilio';
import { WebSocket, WebSocketServer } from 'ws';

const CALLS = Number(process.env.BENCH_CALLS ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_MS = 2000;
/** Measured rounds per relay (alternating); BENCH_SECONDS each. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PATH = '/api/voice/media-stream';
const PUBLIC_URL = 'http://localhost:3000';
const ACCOUNT_SID = `AC${'b'.repeat(32)}`;
const AUTH_TOKEN = 'bench-auth-token';
const API_KEY = 'sk-bench-realtime';
/** The bridge's database: `pg` (default; BENCH_DATABASE_URL) or `pglite` (in memory, in the relay process). */
const DB = process.env.BENCH_DB === 'pglite' ? 'pglite' : 'pg';
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

type RelayMode = 'floor' | 'bridge';
interface ReadyMessage {
  type: 'ready';
  port: number;
  /** `path`: the stream path of the call's TwiML (the bridge's ends in the call's signed binding). */
  calls: { uuid: string; callSid: string; path: string }[];
}

// ---------------------------------------------------------------------------------------------------------
// Child: the relay under test.

async function runFloor(upstreamUrl: string): Promise<ReadyMessage> {
  const server = createServer();
  const wss = new WebSocketServer({ server, path: PATH, perMessageDeflate: false });
  wss.on('connection', (down) => {
    const up = new WebSocket(upstreamUrl, { headers: { Authorization: `Bearer ${API_KEY}` }, perMessageDeflate: false });
    const queued: Buffer[] = [];
    up.on('open', () => {
      for (const frame of queued.splice(0)) up.send(frame, { binary: false });
    });
    down.on('message', (data) => {
      if (up.readyState === WebSocket.OPEN) up.send(data as Buffer, { binary: false });
      else queued.push(data as Buffer);
    });
    up.on('message', (data) => {
      if (down.readyState === WebSocket.OPEN) down.send(data as Buffer, { binary: false });
    });
    down.on('close', () => up.close());
    up.on('close', () => down.close());
    up.on('error', () => down.close());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    type: 'ready',
    port: (server.address() as AddressInfo).port,
    calls: Array.from({ length: CALLS }, (_, i) => ({ uuid: `floor-${i}`, callSid: `CA${String(i).padStart(32, '0')}`, path: PATH })),
  };
}

async function runBridge(upstreamUrl: string): Promise<ReadyMessage> {
  const { buildApp } = await import('../apps/server/src/app.ts');
  const { loadConfig } = await import('../apps/server/src/config/env.ts');
  const { openDatabase } = await import('../apps/server/src/db/client.ts');
  const { openTestDatabase } = await import('../apps/server/src/test/test-database.ts');
  const { conversations } = await import('../apps/server/src/db/schema/index.ts');
  const { buildChannelAccount } = await import('../apps/server/src/test/channel-factories.ts');
  const { buildConversation, buildConversationType, buildProspect } = await import('../apps/server/src/test/conversation-factories.ts');
  const { mediaStreamUrl, streamBinding } = await import('../apps/server/src/voice/urls.ts');
  // PostgreSQL as in production by default: PGlite runs its queries on the relay's own thread, so the job
  // runner's polls would show up as audio latency that a production server does not have.
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  if (DB === 'pglite') {
    database = openDatabase({ pgliteDir: 'memory://' });
    await database.migrate();
  } else {
    process.env.TEST_DB = 'pg';
    process.env.TEST_DATABASE_URL = PG_URL;
    database = await openTestDatabase();
    // The fresh database is dropped when the parent ends the relay.
    process.on('message', (m: { type: string }) => {
      if (m.type === 'exit') void database.close().finally(() => process.exit(0));
    });
  }
  const config = loadConfig({
    NODE_ENV: 'production',
    APP_SECRET: 'bench-secret-bench-secret-bench',
    LOG_LEVEL: 'silent',
    PUBLIC_URL,
    DATA_DIR: `/tmp/sales-agent-bench-${process.pid}`,
    OPENAI_API_KEY: API_KEY,
    OPENAI_REALTIME_URL: upstreamUrl,
    TWILIO_API_URL: 'http://127.0.0.1:9',
  });
  const { app, ctx } = await buildApp({ config, database });
  const type = await buildConversationType(ctx, { phases: 2 });
  const account = await buildChannelAccount(ctx, { type: 'TWILIO', pageId: '+15550001111', token: AUTH_TOKEN, config: { accountSid: ACCOUNT_SID }, conversationTypeId: type.id });
  const calls: ReadyMessage['calls'] = [];
  for (let i = 0; i < CALLS; i += 1) {
    const prospect = await buildProspect(ctx, account.id);
    const conversation = await buildConversation(ctx, { conversationTypeId: type.id, prospectId: prospect.id });
    const callSid = `CA${String(i).padStart(32, '0')}`;
    await ctx.db.update(conversations).set({ callSid, callDirection: 'outbound', useRealtimeApi: true }).where(eq(conversations.id, conversation.id));
    calls.push({ uuid: conversation.uuid, callSid, path: new URL(mediaStreamUrl(config, streamBinding(config, conversation.uuid, callSid))).pathname });
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { type: 'ready', port: (app.server.address() as AddressInfo).port, calls };
}

/**
 * Time inside the relay per frame: from a socket's `message` event to the end of its handlers (which make the
 * relay's sends), per direction — server-side sockets carry Twilio's frames, client sockets OpenAI's. The
 * same patch on both relays; it excludes queueing, so it is the relay's own cost even on a loaded machine.
 */
const handlerTimes = { up: [] as number[], down: [] as number[] };
let recordHandlers = false;
function instrumentMessageHandlers() {
  const proto = WebSocket.prototype as unknown as { emit: (event: string, ...args: unknown[]) => boolean; _isServer: boolean };
  const original = proto.emit;
  proto.emit = function (this: typeof proto, event: string, ...args: unknown[]) {
    if (event !== 'message' || !recordHandlers) return original.call(this, event, ...args);
    const start = performance.now();
    const result = original.call(this, event, ...args);
    (this._isServer ? handlerTimes.up : handlerTimes.down).push(performance.now() - start);
    return result;
  };
}

async function child(mode: RelayMode, upstreamUrl: string) {
  instrumentMessageHandlers();
  const ready = mode === 'floor' ? await runFloor(upstreamUrl) : await runBridge(upstreamUrl);
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  process.on('message', (message: { type: string }) => {
    if (message.type === 'cpu') {
      const sorted = (list: number[]) => list.splice(0).sort((a, b) => a - b);
      const handlers = { up: sorted(handlerTimes.up), down: sorted(handlerTimes.down) };
      const summary = (list: number[]) => ({ p50: percentile(list, 50), p99: percentile(list, 99) });
      process.send!({
        type: 'cpu',
        usage: process.cpuUsage(),
        at: performance.now(),
        loopP99Ms: loop.percentile(99) / 1e6,
        loopMaxMs: loop.max / 1e6,
        handlers: { up: summary(handlers.up), down: summary(handlers.down) },
      });
      loop.reset();
      recordHandlers = !recordHandlers;
    }
    if (message.type === 'exit' && (mode === 'floor' || DB === 'pglite')) process.exit(0);
  });
  process.send!(ready);
}

// ---------------------------------------------------------------------------------------------------------
// Parent: Twilio clients, the OpenAI side, the clock.

const SILENCE = 0xff;
let tagSequence = 0;
/** A μ-law frame whose first 8 bytes are a unique tag (the rest silence), and that tag as a map key. */
function taggedAudio(bytes: number): { audio: Buffer; key: string } {
  const audio = Buffer.alloc(bytes, SILENCE);
  tagSequence += 1;
  audio.writeUInt32BE(0xa5a5a5a5, 0);
  audio.writeUInt32BE(tagSequence, 4);
  return { audio, key: audio.subarray(0, 8).toString('hex') };
}
const keyOf = (b64: string) => Buffer.from(b64.slice(0, 12), 'base64').subarray(0, 8).toString('hex');

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

type Summary = { p50: number; p99: number };
interface CpuReport {
  usage: NodeJS.CpuUsage;
  at: number;
  loopP99Ms: number;
  loopMaxMs: number;
  /** In-relay handler time per frame during the measurement (the report at its end). */
  handlers: { up: Summary; down: Summary };
}

interface Result {
  mode: RelayMode;
  up: number[];
  down: number[];
  cpuPerCallPercent: number;
  lostUp: number;
  lostDown: number;
  /** The relay's event-loop delay during the measurement. */
  loop: string;
  /** In-relay time per frame, ms (p50/p99 per round; averaged over rounds when combined). */
  handlers: { up: Summary; down: Summary };
}

async function measure(mode: RelayMode): Promise<Result> {
  const sentUp = new Map<string, number>();
  const sentDown = new Map<string, number>();
  const up: number[] = [];
  const down: number[] = [];
  let measuring = false;

  // The OpenAI side.
  const sessions: WebSocket[] = [];
  let configured = 0;
  const openaiServer = createServer();
  const openai = new WebSocketServer({ server: openaiServer, perMessageDeflate: false });
  openai.on('connection', (socket, req) => {
    if (req.headers.authorization !== `Bearer ${API_KEY}`) return socket.close(1008);
    sessions.push(socket);
    socket.send(JSON.stringify({ type: 'session.created', session: { type: 'realtime' } }));
    socket.on('message', (data) => {
      const at = performance.now();
      const event = JSON.parse(data.toString()) as { type?: string; event?: string; audio?: string; media?: { payload: string } };
      const payload = event.type === 'input_audio_buffer.append' ? event.audio : event.event === 'media' ? event.media?.payload : undefined;
      if (payload) {
        const key = keyOf(payload);
        const sent = sentUp.get(key);
        if (sent !== undefined) {
          sentUp.delete(key);
          if (measuring) up.push(at - sent);
        }
      } else if (event.type === 'session.update') configured += 1;
    });
  });
  await new Promise<void>((resolve) => openaiServer.listen(0, '127.0.0.1', resolve));
  const upstreamUrl = `ws://127.0.0.1:${(openaiServer.address() as AddressInfo).port}/v1/realtime`;

  // The relay.
  const relay = fork(fileURLToPath(import.meta.url), ['--relay', mode, upstreamUrl], { execArgv: ['--import', 'tsx'] });
  const ready = await new Promise<ReadyMessage>((resolve) => relay.once('message', (m) => resolve(m as ReadyMessage)));
  const cpu = () =>
    new Promise<CpuReport>((resolve) => {
      relay.once('message', (m) => resolve(m as CpuReport));
      relay.send({ type: 'cpu' });
    });

  // The Twilio side.
  const clients = await Promise.all(
    ready.calls.map(async (call, i) => {
      const signature = twilio.getExpectedTwilioSignature(AUTH_TOKEN, `ws://localhost:3000${call.path}`, {});
      const socket = new WebSocket(`ws://127.0.0.1:${ready.port}${call.path}`, { headers: { 'X-Twilio-Signature': signature }, perMessageDeflate: false });
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      const streamSid = `MZ${String(i).padStart(32, '0')}`;
      socket.on('message', (data) => {
        const at = performance.now();
        const message = JSON.parse(data.toString()) as { event?: string; type?: string; media?: { payload: string }; mark?: { name: string }; delta?: string };
        const payload = message.event === 'media' ? message.media?.payload : message.type === 'response.output_audio.delta' ? message.delta : undefined;
        if (payload) {
          const key = keyOf(payload);
          const sent = sentDown.get(key);
          if (sent !== undefined) {
            sentDown.delete(key);
            if (measuring) down.push(at - sent);
          }
        } else if (message.event === 'mark') {
          socket.send(JSON.stringify({ event: 'mark', streamSid, mark: message.mark }));
        }
      });
      socket.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
      socket.send(
        JSON.stringify({
          event: 'start',
          streamSid,
          start: {
            streamSid,
            accountSid: ACCOUNT_SID,
            callSid: call.callSid,
            tracks: ['inbound'],
            customParameters: { conversationUuid: call.uuid },
            mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
          },
        }),
      );
      return { socket, streamSid };
    }),
  );
  // Sessions are open (and, for the bridge, configured) before any timing starts.
  const deadline = Date.now() + 30_000;
  while (sessions.length < CALLS || (mode === 'bridge' && configured < CALLS)) {
    if (Date.now() > deadline) throw new Error(`only ${sessions.length} realtime sessions opened`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  // Load: 20 ms caller frames per call, 100 ms agent deltas per session, starts spread over the period.
  const timers: NodeJS.Timeout[] = [];
  let chunk = 0;
  clients.forEach(({ socket, streamSid }, i) => {
    setTimeout(() => {
      timers.push(
        setInterval(() => {
          const { audio, key } = taggedAudio(160);
          chunk += 1;
          const frame = JSON.stringify({ event: 'media', sequenceNumber: String(chunk), streamSid, media: { track: 'inbound', chunk: String(chunk), timestamp: String(chunk * 20), payload: audio.toString('base64') } });
          sentUp.set(key, performance.now());
          socket.send(frame);
        }, 20),
      );
    }, (i * 20) / CALLS);
  });
  sessions.forEach((socket, i) => {
    setTimeout(() => {
      timers.push(
        setInterval(() => {
          const { audio, key } = taggedAudio(800);
          const event = JSON.stringify({ type: 'response.output_audio.delta', response_id: 'resp_1', item_id: `item_${i}`, output_index: 0, content_index: 0, delta: audio.toString('base64') });
          sentDown.set(key, performance.now());
          socket.send(event);
        }, 100),
      );
    }, (i * 100) / CALLS);
  });

  await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
  sentUp.clear();
  sentDown.clear();
  measuring = true;
  const before = await cpu();
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  const after = await cpu();
  measuring = false;
  for (const timer of timers) clearInterval(timer);
  const lostUp = [...sentUp.values()].filter((at) => performance.now() - at > 1000).length;
  const lostDown = [...sentDown.values()].filter((at) => performance.now() - at > 1000).length;

  const cpuMs = (after.usage.user - before.usage.user + after.usage.system - before.usage.system) / 1000;
  const wallMs = after.at - before.at;
  for (const { socket } of clients) socket.close();
  relay.send({ type: 'exit' });
  await new Promise((resolve) => relay.once('exit', resolve));
  openai.close();
  openaiServer.closeAllConnections();
  await new Promise<void>((resolve) => openaiServer.close(() => resolve()));
  return {
    mode,
    up: up.sort((a, b) => a - b),
    down: down.sort((a, b) => a - b),
    cpuPerCallPercent: (cpuMs / wallMs / CALLS) * 100,
    lostUp,
    lostDown,
    loop: `p99 ${after.loopP99Ms.toFixed(1)} ms, max ${after.loopMaxMs.toFixed(1)} ms`,
    handlers: after.handlers,
  };
}

async function parent() {
  console.log(`voice relay: ${CALLS} concurrent calls, ${ROUNDS} × ${SECONDS} s measured per relay, bridge on ${DB}, ${cpus().length} CPUs, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  // Rounds alternate floor and bridge, so a burst of load from elsewhere on the machine hits both alike.
  const runs: Result[] = [];
  for (let round = 0; round < ROUNDS; round += 1) for (const mode of ['floor', 'bridge'] as const) runs.push(await measure(mode));
  const results = (['floor', 'bridge'] as const).map((mode): Result => {
    const of = runs.filter((r) => r.mode === mode);
    return {
      mode,
      up: of.flatMap((r) => r.up).sort((a, b) => a - b),
      down: of.flatMap((r) => r.down).sort((a, b) => a - b),
      cpuPerCallPercent: of.reduce((sum, r) => sum + r.cpuPerCallPercent, 0) / of.length,
      lostUp: of.reduce((sum, r) => sum + r.lostUp, 0),
      lostDown: of.reduce((sum, r) => sum + r.lostDown, 0),
      loop: of.map((r) => r.loop).join('; '),
      handlers: {
        up: { p50: mean(of.map((r) => r.handlers.up.p50)), p99: mean(of.map((r) => r.handlers.up.p99)) },
        down: { p50: mean(of.map((r) => r.handlers.down.p50)), p99: mean(of.map((r) => r.handlers.down.p99)) },
      },
    };
  });
  const fmt = (ms: number) => (ms === undefined ? '-' : ms.toFixed(3));
  console.log('\n| relay | direction | frames | p50 ms | p99 ms | max ms | in-relay p50 / p99 µs | relay CPU per call |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    for (const [direction, samples, handler] of [['caller → OpenAI', r.up, r.handlers.up], ['OpenAI → caller', r.down, r.handlers.down]] as const) {
      console.log(
        `| ${r.mode} | ${direction} | ${samples.length} | ${fmt(percentile(samples, 50))} | ${fmt(percentile(samples, 99))} | ${fmt(samples.at(-1)!)} | ${(handler.p50 * 1000).toFixed(0)} / ${(handler.p99 * 1000).toFixed(0)} | ${r.cpuPerCallPercent.toFixed(2)} % of a core |`,
      );
    }
    console.log(`(${r.mode} relay event-loop delay: ${r.loop})`);
    if (r.lostUp || r.lostDown) console.log(`(${r.mode}: ${r.lostUp} caller and ${r.lostDown} agent frames never arrived)`);
  }
  const [floor, bridge] = results;
  const ratio = (a: number[], b: number[]) => (percentile(b, 99) / percentile(a, 99)).toFixed(2);
  console.log(`\nbridge p99 / floor p99: caller → OpenAI ${ratio(floor.up, bridge.up)}×, OpenAI → caller ${ratio(floor.down, bridge.down)}×`);
  console.log(`load after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}

const relayIndex = process.argv.indexOf('--relay');
if (relayIndex >= 0) await child(process.argv[relayIndex + 1] as RelayMode, process.argv[relayIndex + 2]);
else await parent();
