import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import type { Database } from '../db/client.ts';
import { rowsOf } from './limits.ts';

/**
 * Notifications for live screens (server-sent events) and for waking the job runner. In the embedded mode
 * (one process) they stay in the process; with PostgreSQL every instance sees every event through
 * LISTEN/NOTIFY (PgEventBus below), so a viewer connected to one instance sees what another one stored.
 */
export interface AppEvents {
  /** Something about a conversation changed (message stored, phase changed, deleted …). */
  'conversation.changed': { conversationId: number; uuid: string };
  /** A user's read mark of a conversation moved: that user's inboxes on other devices refresh (issue 12). */
  'conversation.read': { userId: number; conversationId: number; uuid: string };
  /** The unanswered-conversations list changed. */
  'unanswered.changed': { conversationId: number };
  /** An outbound message was queued (its outbox row committed): the send request a channel sender delivers. */
  'outbox.queued': { conversationId: number; messageId: number };
  /** A session ended (logout) or a user was deleted: every instance forgets its cached sessions (session-cache.ts). */
  'sessions.revoked': { reason: 'logout' | 'user deleted' | 'password changed' | 'signed out everywhere' | 'role changed' | 'user deactivated' };
  /** A user's grants of messaging accounts changed (null: several users'): inbox streams re-read them (issue 18). */
  'grants.changed': { userId: number | null };
  /** A teammate was notified (assigned, mentioned; issue 24): their inbox streams refresh. */
  'notification.created': { userId: number; conversationId: number; uuid: string };
}

export class EventBus {
  private readonly emitter = new EventEmitter();
  constructor() {
    // Every open SSE stream is one listener; the default cap of 10 would warn under normal use.
    this.emitter.setMaxListeners(0);
  }
  emit<K extends keyof AppEvents>(name: K, payload: AppEvents[K]): void {
    this.emitter.emit(name, payload);
  }
  on<K extends keyof AppEvents>(name: K, listener: (payload: AppEvents[K]) => void): () => void {
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }
  /** Number of listeners of one event (open live streams are listeners of conversation.changed). */
  listenerCount(name: keyof AppEvents): number {
    return this.emitter.listenerCount(name);
  }
  async close(): Promise<void> {}
}

/** The NOTIFY channel every instance listens on. */
export const EVENT_CHANNEL = 'sales_agent_events';
/**
 * PostgreSQL refuses NOTIFY payloads of 8000 bytes or more. Larger ones are stored in live_events and the
 * notification carries only the row id; the margin leaves room for the envelope.
 */
export const NOTIFY_INLINE_LIMIT = 7000;
/** Rows in live_events older than this are swept: every listener has read them long before. */
const LIVE_EVENT_RETENTION_MS = 60_000;
const RECONNECT_MS = 1000;

interface Envelope {
  /** Sending instance: it delivered the event locally already and skips its own notification. */
  i: string;
  n: keyof AppEvents;
  /** The payload, or `r`: the live_events row holding it. */
  p?: unknown;
  r?: number;
}

/**
 * An EventBus shared by every instance on one PostgreSQL. `emit` delivers to local listeners at once (same
 * behaviour as the embedded mode) and publishes a NOTIFY; a dedicated connection LISTENs and hands other
 * instances' events to local listeners. While that connection is down it reconnects every second; events of
 * that gap reach viewers through the page's poll, as before.
 */
export class PgEventBus extends EventBus {
  readonly instanceId = randomUUID();
  private client: pg.Client | null = null;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private lastSweep = 0;
  /** Resolves once LISTEN is active (tests wait for it before emitting from another instance). */
  ready: Promise<void>;

  constructor(
    private readonly database: Database & { url: string },
    private readonly log: FastifyBaseLogger,
  ) {
    super();
    this.ready = this.connect();
  }

  override emit<K extends keyof AppEvents>(name: K, payload: AppEvents[K]): void {
    super.emit(name, payload);
    void this.publish(name, payload).catch((err) => this.log.warn({ err, event: name }, 'could not publish a live event'));
  }

  /** Publishes through the pool (not the LISTEN connection), outside any transaction of the caller. */
  private async publish(name: keyof AppEvents, payload: unknown): Promise<void> {
    let text = JSON.stringify({ i: this.instanceId, n: name, p: payload } satisfies Envelope);
    if (Buffer.byteLength(text) > NOTIFY_INLINE_LIMIT) {
      const rows = await this.database.db.execute(
        sql`insert into live_events (payload) values (${JSON.stringify(payload)}::jsonb) returning id`,
      );
      text = JSON.stringify({ i: this.instanceId, n: name, r: Number(rowsOf<{ id: string }>(rows)[0].id) } satisfies Envelope);
      this.sweep();
    }
    await this.database.db.execute(sql`select pg_notify(${EVENT_CHANNEL}, ${text})`);
  }

  private sweep(): void {
    if (Date.now() - this.lastSweep < LIVE_EVENT_RETENTION_MS) return;
    this.lastSweep = Date.now();
    void this.database.db
      .execute(sql`delete from live_events where created_at < now() - (${LIVE_EVENT_RETENTION_MS}::int * interval '1 millisecond')`)
      .catch((err) => this.log.warn({ err }, 'could not sweep live events'));
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.database.url });
    client.on('error', (err) => {
      this.log.warn({ err }, 'live event connection lost; reconnecting');
      this.scheduleReconnect(client);
    });
    client.on('end', () => this.scheduleReconnect(client));
    client.on('notification', (message) => {
      if (message.channel !== EVENT_CHANNEL || !message.payload) return;
      void this.receive(message.payload).catch((err) => this.log.warn({ err }, 'could not read a live event'));
    });
    try {
      await client.connect();
      await client.query(`listen ${EVENT_CHANNEL}`);
      if (this.closed) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
    } catch (err) {
      this.log.warn({ err }, 'could not listen for live events; retrying');
      this.scheduleReconnect(client);
    }
  }

  private scheduleReconnect(client: pg.Client): void {
    if (this.closed || this.reconnectTimer) return;
    if (this.client === client) this.client = null;
    client.removeAllListeners('end');
    void client.end().catch(() => undefined);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.ready = this.connect();
    }, RECONNECT_MS);
    this.reconnectTimer.unref();
  }

  private async receive(text: string): Promise<void> {
    const envelope = JSON.parse(text) as Envelope;
    if (envelope.i === this.instanceId) return;
    let payload = envelope.p;
    if (envelope.r !== undefined) {
      const rows = await this.database.db.execute(sql`select payload from live_events where id = ${envelope.r}`);
      const [row] = rowsOf<{ payload: unknown }>(rows);
      if (!row) return;
      payload = row.payload;
    }
    super.emit(envelope.n, payload as never);
  }

  override async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
    }
  }
}

/** The bus for this database: shared through PostgreSQL when there is one, in-process otherwise. */
export function createEventBus(database: Database, log: FastifyBaseLogger): EventBus {
  if (database.driver === 'pg' && database.url) return new PgEventBus(database as Database & { url: string }, log);
  return new EventBus();
}
