import { and, desc, eq, gte, lt, sql } from 'drizzle-orm';
import type { AnalyticsQuery, CampaignFiguresResult } from '@sales-agent/shared/schemas/analytics';
import type { Actor, AppContext } from '../../context.ts';
import { bookings, campaignContacts, campaigns } from '../../db/schema/index.ts';
import { analyticsRange, scope } from './analytics.service.ts';

/**
 * Campaign figures (docs/analytics.md "Campaigns"): per campaign of the type, the contacts that reached a
 * final status in the range (`finished_at`), by outcome — booked also counts a contact whose conversation has a
 * booking (not cancelled) — and campaigns without one are left out. Campaigns are an
 * ADMIN's tool (docs/campaigns.md), so a NORMAL user gets none.
 */
export async function campaignFigures(ctx: AppContext, actor: Actor, query: AnalyticsQuery): Promise<CampaignFiguresResult> {
  await scope(ctx, actor, query); // 404 for an unknown type, 400 for a bad range, as every figure
  if (actor.role !== 'ADMIN') return { campaigns: [] };
  const { from, to } = analyticsRange(query);
  const cc = campaignContacts;
  const of = (...statuses: string[]) => sql<number>`count(*) filter (where ${cc.status} in (${sql.join(statuses.map((s) => sql`${s}`), sql`, `)}))::int`;
  const rows = await ctx.db
    .select({
      id: campaigns.id,
      name: campaigns.name,
      channel: campaigns.channel,
      status: campaigns.status,
      contacted: sql<number>`count(*) filter (where ${cc.attempts} > 0 and ${cc.status} <> 'opted_out')::int`,
      answered: of('answered'),
      voicemail: of('voicemail'),
      noAnswer: of('no_answer', 'busy'),
      sent: of('sent'),
      // A call's contact turns `booked`; a message's stays `sent` while its conversation books later.
      booked: sql<number>`count(*) filter (where ${cc.status} = 'booked' or exists (select 1 from ${bookings} b where b.conversation_id = ${cc.conversationId} and b.status <> 'cancelled'))::int`,
      optedOut: of('opted_out'),
      failed: of('failed'),
    })
    .from(campaigns)
    .innerJoin(cc, and(eq(cc.campaignId, campaigns.id), gte(cc.finishedAt, from), lt(cc.finishedAt, to)))
    .where(eq(campaigns.conversationTypeId, query.conversationType))
    .groupBy(campaigns.id)
    .orderBy(desc(campaigns.id));
  return { campaigns: rows.map((r) => ({ ...r, contacted: Number(r.contacted) })) };
}
