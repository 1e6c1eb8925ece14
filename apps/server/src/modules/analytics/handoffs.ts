import { eq, sql } from 'drizzle-orm';
import type { AnalyticsQuery, FollowUpRow, FollowUpsResult, HandoffReasonRow, HandoffsResult } from '@sales-agent/shared/schemas/analytics';
import type { Actor, AppContext } from '../../context.ts';
import { conversations, followUps, handoffs } from '../../db/schema/index.ts';
import { scope } from './analytics.service.ts';

/**
 * Hand-offs and follow-ups (docs/analytics.md), over the conversations created in the range: rows of `handoffs`
 * and `follow_ups` (written in the transaction of the hand-off / follow-up, answered by triggers on messages),
 * joined to the conversations the filters and the viewer's grants select.
 */

const seconds = (v: unknown) => (v === null || v === undefined ? null : Math.round(Number(v) * 1000) / 1000);

export async function handoffFigures(ctx: AppContext, actor: Actor, query: AnalyticsQuery): Promise<HandoffsResult> {
  const s = await scope(ctx, actor, query);
  const none = (reason: string): HandoffReasonRow => ({ reason, handoffs: 0, answered: 0, answerSeconds: { p50: null, p90: null } });
  if (s.empty) return { conversations: 0, handedOff: 0, handedOffShare: null, total: none('ALL'), byReason: [] };
  const h = handoffs;
  const wait = sql`extract(epoch from (${h.answeredAt} - ${h.handedAt}))::float8`;
  const pct = (p: number) => sql<number | null>`percentile_cont(${sql.raw(String(p))}) within group (order by ${wait}) filter (where ${h.answeredAt} is not null)`;
  const [counts] = await ctx.db
    .select({
      conversations: sql<number>`count(*)::int`,
      handedOff: sql<number>`count(*) filter (where exists (select 1 from ${h} where ${h.conversationId} = "conversations"."id"))::int`,
    })
    .from(conversations)
    .where(s.where);
  // grouping sets: one row per reason and the total (reason null) in one scan.
  const rows = await ctx.db
    .select({
      reason: h.reason,
      isTotal: sql<boolean>`grouping(${h.reason}) = 1`,
      handoffs: sql<number>`count(*)::int`,
      answered: sql<number>`count(${h.answeredAt})::int`,
      p50: pct(0.5),
      p90: pct(0.9),
    })
    .from(h)
    .innerJoin(conversations, eq(conversations.id, h.conversationId))
    .where(s.where)
    .groupBy(sql`grouping sets ((${h.reason}), ())`);
  const row = (r: (typeof rows)[number]): HandoffReasonRow => ({
    reason: r.isTotal ? 'ALL' : r.reason,
    handoffs: Number(r.handoffs),
    answered: Number(r.answered),
    answerSeconds: { p50: seconds(r.p50), p90: seconds(r.p90) },
  });
  const total = rows.find((r) => r.isTotal);
  const n = Number(counts?.conversations ?? 0);
  const handedOff = Number(counts?.handedOff ?? 0);
  return {
    conversations: n,
    handedOff,
    handedOffShare: n === 0 ? null : handedOff / n,
    total: total ? row(total) : none('ALL'),
    byReason: rows
      .filter((r) => !r.isTotal)
      .map(row)
      .sort((a, b) => b.handoffs - a.handoffs || a.reason.localeCompare(b.reason)),
  };
}

export async function followUpFigures(ctx: AppContext, actor: Actor, query: AnalyticsQuery): Promise<FollowUpsResult> {
  const s = await scope(ctx, actor, query);
  const empty = (number: number | null): FollowUpRow => ({ number, sent: 0, broughtBack: 0, broughtBackShare: null });
  if (s.empty) return { followedUp: 0, total: empty(null), byNumber: [] };
  const f = followUps;
  // The rank of each follow-up in its conversation (1st, 2nd …), then counted per rank and in all.
  const ranked = ctx.db
    .select({
      conversationId: f.conversationId,
      replied: sql<boolean>`(${f.repliedAt} is not null)`.as('replied'),
      number: sql<number>`row_number() over (partition by ${f.conversationId} order by ${f.sentAt}, ${f.id})`.as('number'),
    })
    .from(f)
    .innerJoin(conversations, eq(conversations.id, f.conversationId))
    .where(s.where)
    .as('ranked');
  const rows = await ctx.db
    .select({
      number: ranked.number,
      isTotal: sql<boolean>`grouping(${ranked.number}) = 1`,
      sent: sql<number>`count(*)::int`,
      broughtBack: sql<number>`count(*) filter (where ${ranked.replied})::int`,
      followedUp: sql<number>`count(distinct ${ranked.conversationId})::int`,
    })
    .from(ranked)
    .groupBy(sql`grouping sets ((${ranked.number}), ())`);
  const row = (number: number | null, r?: (typeof rows)[number]): FollowUpRow => {
    if (!r) return empty(number);
    const sent = Number(r.sent);
    const broughtBack = Number(r.broughtBack);
    return { number, sent, broughtBack, broughtBackShare: sent === 0 ? null : broughtBack / sent };
  };
  const total = rows.find((r) => r.isTotal);
  return {
    followedUp: Number(total?.followedUp ?? 0),
    total: row(null, total),
    byNumber: rows
      .filter((r) => !r.isTotal)
      .map((r) => row(Number(r.number), r))
      .sort((a, b) => a.number! - b.number!),
  };
}
