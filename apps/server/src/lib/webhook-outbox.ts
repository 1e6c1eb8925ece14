import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../db/executor.ts';

/**
 * The writing half of outbound webhooks (issue 27, docs/api.md "Events"): an event is stored in the webhook
 * outbox in the SAME statement (or transaction) as the change it reports, together with one delivery per
 * subscribed, enabled endpoint and that delivery's job. A change that commits has its events; one that rolls
 * back (or a process killed before the commit) has none, and nothing is announced that nobody can read.
 * With no endpoint subscribed to the type nothing is written at all: the cost per stored message is one probe
 * of the (small) endpoint table inside the statement that stores the message. The sending half lives in
 * webhooks/deliver.job.ts; this file is a leaf below conversations/ so the domain can write events.
 */
export const WEBHOOK_DELIVER_JOB = 'webhooks.deliver';
export const webhookDeliveryJobKey = (deliveryId: number) => `webhook-delivery:${deliveryId}`;
/** Jobs of a delivery only fail on a crash or a database error: delivery failures are the delivery's own retries. */
export const WEBHOOK_JOB_MAX_ATTEMPTS = 25;

/** A conversation's events go out in order: their lane. */
export const conversationLane = (conversationId: number | SQL) => sql`'c:' || ${conversationId}`;

/**
 * Common table expressions (each starting with a comma, to append to a WITH) that store one event of `type`
 * per row of `source` — a query whose rows have `lane` (text) and `data` (jsonb) — with its deliveries and
 * their jobs. `name` keeps the CTE names apart when one statement writes two types.
 */
export function webhookEventCtes(type: string, source: SQL, name = 'wh'): SQL {
  const n = (suffix: string) => sql.raw(`${name}_${suffix}`);
  return sql`, ${n('ep')} as (
      select id from webhook_endpoints where enabled and events @> ${JSON.stringify([type])}::jsonb
    ), ${n('ev')} as (
      insert into webhook_events (type, lane, data)
      select ${type}, s.lane, s.data from (${source}) s where s.data is not null and exists (select 1 from ${n('ep')})
      returning id, lane
    ), ${n('dl')} as (
      insert into webhook_deliveries (event_id, endpoint_id, lane)
      select ev.id, ep.id, ev.lane from ${n('ev')} ev cross join ${n('ep')} ep
      order by ev.id, ep.id
      returning id
    ), ${n('jb')} as (
      insert into jobs (name, payload, singleton_key, max_attempts)
      select ${WEBHOOK_DELIVER_JOB}, jsonb_build_object('deliveryId', dl.id), 'webhook-delivery:' || dl.id, ${WEBHOOK_JOB_MAX_ATTEMPTS}::int
      from ${n('dl')} dl
      on conflict do nothing
      returning id
    )`;
}

/**
 * Stores one event in its own statement through `executor`: pass the transaction that makes the change, so
 * both commit together. Answers whether any endpoint will receive it (the caller may wake the job runner).
 */
export async function recordWebhookEvent(executor: Executor, type: string, lane: SQL | string, data: SQL | Record<string, unknown>): Promise<boolean> {
  const laneSql = typeof lane === 'string' ? sql`${lane}::text` : lane;
  const dataSql = isSql(data) ? data : sql`${JSON.stringify(data)}::jsonb`;
  const result = await executor.execute(sql`
    with src as (select ${laneSql} as lane, ${dataSql} as data)${webhookEventCtes(type, sql`select lane, data from src`)}
    select count(*)::int as n from wh_jb`);
  return Number((result as unknown as { rows: { n: number }[] }).rows[0]?.n ?? 0) > 0;
}

function isSql(value: unknown): value is SQL {
  return typeof value === 'object' && value !== null && 'queryChunks' in value;
}

/**
 * A conversation as webhook payloads carry it: the fields of GET /api/conversation/{uuid} that describe it
 * (not its messages), read from the row aliased `c`.
 */
export const conversationJson = (c = 'c') => {
  const a = sql.raw(c);
  return sql`jsonb_build_object(
    'id', ${a}.id, 'uuid', ${a}.uuid, 'phase', ${a}.phase, 'conversationTypeId', ${a}.conversation_type_id,
    'rating', ${a}.rating, 'aiPaused', ${a}.ai_paused, 'messagesCount', ${a}.messages_count,
    'prospectId', ${a}.prospect_id, 'messagingAccountId', ${a}.messaging_account_id,
    'callDirection', ${a}.call_direction, 'callStatus', ${a}.call_status, 'callDuration', ${a}.call_duration,
    'recordingUrl', ${a}.recording_url, 'recordingDuration', ${a}.recording_duration,
    'costUsd', ${a}.cost_usd, 'callCostUsd', ${a}.call_cost_usd,
    'createdAt', to_char(${a}.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'Prospect', (select jsonb_build_object('id', p.id, 'uuid', p.uuid, 'name', p.name) from prospects p where p.id = ${a}.prospect_id))`;
};

/** A message as the API presents it, from a row aliased `m` (or a CTE's returning). */
export const messageJson = (m = 'm') => {
  const a = sql.raw(m);
  return sql`jsonb_build_object('id', ${a}.id, 'role', ${a}.role, 'message', ${a}.message,
    'dateSent', to_char(${a}.date_sent at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;
};

/** Stores a conversation event (`data` gets the conversation itself under `conversation`) in the conversation's lane. */
export async function recordConversationEvent(executor: Executor, type: string, conversationId: number, extra: Record<string, unknown> = {}): Promise<boolean> {
  return recordWebhookEvent(
    executor,
    type,
    conversationLane(conversationId),
    sql`(select jsonb_build_object('conversation', ${conversationJson('c')}) || ${JSON.stringify(extra)}::jsonb from conversations c where c.id = ${conversationId})`,
  );
}

/** message.created for the rows of a CTE (`inserted`, returning id, conversation_id, role, message, date_sent). */
export const messageCreatedCtes = (cte: string) =>
  webhookEventCtes(
    'message.created',
    sql`select 'c:' || i.conversation_id as lane, jsonb_build_object(
        'conversation', jsonb_build_object('id', i.conversation_id, 'uuid', (select cc.uuid from conversations cc where cc.id = i.conversation_id)),
        'message', ${messageJson('i')}) as data
      from ${sql.raw(cte)} i`,
    'whm',
  );
