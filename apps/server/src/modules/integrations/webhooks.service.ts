import { randomUUID } from 'node:crypto';
import { desc, eq, sql } from 'drizzle-orm';
import {
  WEBHOOK_TEST_EVENT,
  type WebhookCreateBody,
  type WebhookCreated,
  type WebhookDeliveryView,
  type WebhookEndpointView,
  type WebhookUpdateBody,
} from '@sales-agent/shared/schemas/integrations';
import type { Actor, AppContext } from '../../context.ts';
import { webhookDeliveries, webhookEndpoints, webhookEvents } from '../../db/schema/index.ts';
import { randomToken } from '../../lib/crypto.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { rowsOf } from '../../lib/limits.ts';
import { outboundUrlProblem } from '../../lib/outbound-url.ts';
import { WEBHOOK_DELIVER_JOB, WEBHOOK_JOB_MAX_ATTEMPTS } from '../../lib/webhook-outbox.ts';
import { requeueEndpoint } from '../../webhooks/deliver.job.ts';

/** Recent deliveries the screen shows per endpoint. */
const RECENT_DELIVERIES = 50;

type EndpointRow = typeof webhookEndpoints.$inferSelect;

function present(row: EndpointRow): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    disabledReason: row.disabledReason,
    consecutiveFailures: row.consecutiveFailures,
    createdAt: row.createdAt.toISOString(),
  };
}

const endpointNotFound = () => notFound('There is no such webhook endpoint.', 'WEBHOOK_NOT_FOUND');

/** The SSRF rule of every outbound call to a URL an ADMIN typed (lib/outbound-url.ts), checked at save. */
async function checkUrl(ctx: AppContext, url: string): Promise<void> {
  const problem = await outboundUrlProblem(url, { allowPrivate: ctx.config.ALLOW_PRIVATE_URLS });
  if (problem) throw new AppError(400, 'WEBHOOK_URL_REFUSED', problem);
}

export async function createWebhook(ctx: AppContext, actor: Actor, input: WebhookCreateBody): Promise<WebhookCreated> {
  await checkUrl(ctx, input.url);
  const secret = `whsec_${randomToken(32)}`;
  const [row] = await ctx.db
    .insert(webhookEndpoints)
    .values({ url: input.url, events: [...new Set(input.events)], secretSealed: ctx.secrets.seal(secret), createdBy: actor.id })
    .returning();
  return { ...present(row), secret };
}

export async function listWebhooks(ctx: AppContext): Promise<WebhookEndpointView[]> {
  const rows = await ctx.db.select().from(webhookEndpoints).orderBy(desc(webhookEndpoints.id));
  return rows.map(present);
}

async function findEndpoint(ctx: AppContext, id: number): Promise<EndpointRow> {
  const [row] = await ctx.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).limit(1);
  if (!row) throw endpointNotFound();
  return row;
}

/** Changes the URL, events or state; enabling again clears the failure count and sends what waited. */
export async function updateWebhook(ctx: AppContext, id: number, input: WebhookUpdateBody): Promise<WebhookEndpointView> {
  const before = await findEndpoint(ctx, id);
  if (input.url !== undefined) await checkUrl(ctx, input.url);
  const enabling = input.enabled === true && !before.enabled;
  const [row] = await ctx.db
    .update(webhookEndpoints)
    .set({
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.events !== undefined ? { events: [...new Set(input.events)] } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(input.enabled === false && before.enabled ? { disabledReason: 'Disabled by an administrator.' } : {}),
      ...(enabling ? { disabledReason: null, consecutiveFailures: 0 } : {}),
    })
    .where(eq(webhookEndpoints.id, id))
    .returning();
  if (!row) throw endpointNotFound();
  if (enabling) await requeueEndpoint(ctx, id);
  return present(row);
}

export async function deleteWebhook(ctx: AppContext, id: number): Promise<void> {
  const rows = await ctx.db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id)).returning({ id: webhookEndpoints.id });
  if (rows.length === 0) throw endpointNotFound();
}

export async function listDeliveries(ctx: AppContext, endpointId: number): Promise<WebhookDeliveryView[]> {
  await findEndpoint(ctx, endpointId);
  const rows = await ctx.db
    .select({ d: webhookDeliveries, eventId: webhookEvents.eventId, type: webhookEvents.type })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(desc(webhookDeliveries.id))
    .limit(RECENT_DELIVERIES);
  return rows.map(({ d, eventId, type }) => ({
    id: d.id,
    eventId,
    type,
    status: d.status,
    attempts: d.attempts,
    responseCode: d.responseCode,
    responseMs: d.responseMs,
    lastError: d.lastError,
    createdAt: d.createdAt.toISOString(),
    lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: d.status === 'PENDING' ? d.nextAttemptAt.toISOString() : null,
  }));
}

/**
 * Queues a delivery of an existing event (same event id, so a receiver that has it already can tell) or a
 * new one, to this endpoint only, in a lane of its own: it does not wait behind the endpoint's other deliveries.
 */
async function queueDelivery(ctx: AppContext, endpointId: number, eventRowId: number | null, test?: { type: string; data: unknown }): Promise<number> {
  const lane = `manual:${randomUUID()}`;
  const result = await ctx.db.execute(sql`
    with ev as (
      ${eventRowId !== null
        ? sql`select id from webhook_events where id = ${eventRowId}`
        : sql`insert into webhook_events (type, lane, data) values (${test!.type}, ${lane}, ${JSON.stringify(test!.data)}::jsonb) returning id`}
    ), dl as (
      insert into webhook_deliveries (event_id, endpoint_id, lane) select ev.id, ${endpointId}::int, ${lane} from ev returning id
    ), jb as (
      insert into jobs (name, payload, singleton_key, max_attempts)
      select ${WEBHOOK_DELIVER_JOB}, jsonb_build_object('deliveryId', dl.id), 'webhook-delivery:' || dl.id, ${WEBHOOK_JOB_MAX_ATTEMPTS}::int from dl
      returning id
    )
    select id from dl`);
  ctx.jobs.wake();
  return Number(rowsOf<{ id: number | string }>(result)[0].id);
}

/** Sends a delivery's event again to its endpoint (a new delivery, the same event id). */
export async function resendDelivery(ctx: AppContext, endpointId: number, deliveryId: number): Promise<{ deliveryId: number }> {
  await findEndpoint(ctx, endpointId);
  const [delivery] = await ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)).limit(1);
  if (!delivery || delivery.endpointId !== endpointId) throw notFound('There is no such delivery.', 'WEBHOOK_NOT_FOUND');
  return { deliveryId: await queueDelivery(ctx, endpointId, delivery.eventId) };
}

/** Sends a `webhook.test` event to this endpoint only. */
export async function sendTestEvent(ctx: AppContext, endpointId: number): Promise<{ deliveryId: number }> {
  const endpoint = await findEndpoint(ctx, endpointId);
  const data = { message: 'A test event from Sales Agent: your endpoint receives and verifies deliveries.', endpoint: { id: endpoint.id, url: endpoint.url } };
  return { deliveryId: await queueDelivery(ctx, endpointId, null, { type: WEBHOOK_TEST_EVENT, data }) };
}
