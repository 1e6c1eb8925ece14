import { and, eq, gte, inArray, isNotNull, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import { phaseLabel } from '@sales-agent/shared/enums';
import type { AnalyticsQuery, FunnelResult, SpeedResult } from '@sales-agent/shared/schemas/analytics';
import type { Actor, AppContext } from '../../context.ts';
import { bookings, conversationPhases, conversations, conversationTypes, messagingAccounts } from '../../db/schema/index.ts';
import { badRequest } from '../../lib/errors.ts';
import { listedSql } from '../conversations/conversation-policy.ts';
import { typeNotFound } from '../conversation-types/conversation-types.service.ts';
import { grantedAccountIds } from '../messaging-accounts/access.ts';
import { addCounts, histogramPercentile, type ReplyHistograms, rollupFunnel, rollupSpeed, rollupWhere, wholeMonths } from './rollup.ts';

/**
 * Analytics figures (issue 26, docs/analytics.md), computed from the conversations' analytics columns that the
 * database triggers keep (max_phase, first_prospect_message_at, first_reply_at): one range scan of
 * conversations_analytics_index per figure, so deletions and manual phase changes show at once. The funnel and
 * speed read the range's whole months from the analytics_monthly rollup (rollup.ts) and only the partial months
 * around them from the conversations.
 */

const DAY_MS = 86_400_000;

/** [from, to) as instants: a bare day as `to` includes that whole day. */
export function analyticsRange(query: Pick<AnalyticsQuery, 'from' | 'to'>): { from: Date; to: Date } {
  const from = new Date(query.from.length === 10 ? `${query.from}T00:00:00.000Z` : query.from);
  const to = query.to.length === 10 ? new Date(Date.parse(`${query.to}T00:00:00.000Z`) + DAY_MS) : new Date(query.to);
  if (!(from < to)) throw badRequest('from must be before to');
  return { from, to };
}

export interface Scope {
  where: SQL;
  phaseCount: number;
  /** A NORMAL user without any granted account: every figure is 0. */
  empty: boolean;
  granted: number[] | 'all';
  /** The accounts of the channel filter's type (null for no filter, WEB or CALL). */
  channelAccounts: number[] | null;
  range: { from: Date; to: Date };
  /** The same filters with another test on created_at in place of [from, to). */
  whereCreated: (created: SQL | undefined) => SQL;
}

/** The filters as one WHERE over conversations, after checking the type exists and the viewer's grants. */
export async function scope(
  ctx: AppContext,
  actor: Actor,
  query: AnalyticsQuery,
  extra?: SQL,
): Promise<Scope> {
  const { from, to } = analyticsRange(query);
  const [type] = await ctx.db
    .select({ id: conversationTypes.id })
    .from(conversationTypes)
    .where(eq(conversationTypes.id, query.conversationType));
  if (!type) throw typeNotFound();
  const [phases] = await ctx.db
    .select({ n: sql<number>`count(*)::int` })
    .from(conversationPhases)
    .where(eq(conversationPhases.conversationTypeId, type.id));
  const granted = await grantedAccountIds(ctx, actor);
  const channelAccounts = await channelAccountIds(ctx, query.channel);
  const c = conversations;
  const filters = (created: SQL | undefined): (SQL | undefined)[] => [
    eq(c.conversationTypeId, query.conversationType),
    created,
    listedSql(granted),
    query.messagingAccount !== undefined ? eq(c.messagingAccountId, query.messagingAccount) : undefined,
    channelSql(query.channel, channelAccounts),
    versionSql(query.version),
    extra,
  ];
  const empty = granted !== 'all' && granted.length === 0;
  const whereCreated = (created: SQL | undefined) => and(...filters(created))!;
  return {
    where: whereCreated(and(gte(c.createdAt, from), lt(c.createdAt, to))),
    whereCreated,
    phaseCount: Number(phases?.n ?? 0),
    empty,
    granted,
    channelAccounts,
    range: { from, to },
  };
}

/**
 * The playbook version a conversation started on (docs/playbook-versions.md): `draft` is a conversation of a type
 * that was never published (type_version null), a number one published version.
 */
function versionSql(version: AnalyticsQuery['version']): SQL | undefined {
  if (version === undefined) return undefined;
  if (version === 'draft') return isNull(conversations.typeVersion);
  if (!/^[1-9][0-9]{0,8}$/.test(version)) throw badRequest('version must be "draft" or a published version number, e.g. 3');
  return eq(conversations.typeVersion, Number(version));
}

/**
 * A messaging channel's accounts, read first: `messaging_account_id in (ids)` is served by the analytics index,
 * where a sub-select on messaging_accounts made the planner read every conversation of the type.
 */
async function channelAccountIds(ctx: AppContext, channel: AnalyticsQuery['channel']): Promise<number[] | null> {
  if (channel === undefined || channel === 'CALL' || channel === 'WEB') return null;
  const rows = await ctx.db.select({ id: messagingAccounts.id }).from(messagingAccounts).where(eq(messagingAccounts.type, channel));
  return rows.map((r) => r.id);
}

function channelSql(channel: AnalyticsQuery['channel'], accounts: number[] | null): SQL | undefined {
  const c = conversations;
  if (channel === undefined) return undefined;
  if (channel === 'CALL') return isNotNull(c.callSid);
  if (channel === 'WEB') return and(isNull(c.messagingAccountId), isNull(c.callSid));
  return and(isNull(c.callSid), inArray(c.messagingAccountId, accounts ?? []));
}

/**
 * How a range is read: its whole months from the rollup (none when `extra` narrows the conversations beyond the
 * rollup's keys, e.g. an A/B arm), the rest, `rowsWhere`, from the conversations.
 */
function split(s: Scope, query: AnalyticsQuery, extra?: SQL): { rollup: SQL | null; rowsWhere: SQL } {
  const months = extra ? null : wholeMonths(s.range.from, s.range.to);
  if (!months) return { rollup: null, rowsWhere: s.where };
  const c = conversations;
  const { from, to } = s.range;
  const rest = or(and(gte(c.createdAt, from), lt(c.createdAt, months.start)), and(gte(c.createdAt, months.end), lt(c.createdAt, to)));
  return { rollup: rollupWhere(query, s, months), rowsWhere: s.whereCreated(rest) };
}

/** The funnel: started → reached each phase 0..N-1 → ended (reached N) / booked. */
export async function funnel(ctx: AppContext, actor: Actor, query: AnalyticsQuery, extra?: SQL): Promise<FunnelResult> {
  const s = await scope(ctx, actor, query, extra);
  const n = s.phaseCount;
  const labels = Array.from({ length: n }, (_, phase) => ({ phase, label: phaseLabel(phase, n) }));
  if (s.empty) return { started: 0, steps: labels.map((l) => ({ ...l, reached: 0 })), ended: 0, booked: 0 };
  const c = conversations;
  const { rollup, rowsWhere } = split(s, query, extra);
  const rows = await ctx.db
    .select({ maxPhase: c.maxPhase, n: sql<number>`count(*)::int` })
    .from(c)
    .where(rowsWhere)
    .groupBy(c.maxPhase);
  let started = rows.reduce((sum, r) => sum + Number(r.n), 0);
  let byMaxPhase = new Map(rows.map((r) => [r.maxPhase ?? -1, Number(r.n)]));
  if (rollup) {
    const months = await rollupFunnel(ctx, rollup);
    started += months.started;
    byMaxPhase = addCounts(byMaxPhase, months.byMaxPhase);
  }
  // reached[k]: conversations whose highest phase is k or beyond.
  const reached = (k: number) => [...byMaxPhase].reduce((sum, [phase, count]) => (phase >= k ? sum + count : sum), 0);
  const [bookedRow] = await ctx.db
    .select({ booked: sql<number>`count(distinct ${bookings.conversationId})::int` })
    .from(bookings)
    .innerJoin(c, eq(c.id, bookings.conversationId))
    .where(and(eq(bookings.status, 'booked'), s.where));
  return {
    started,
    steps: labels.map((l) => ({ ...l, reached: reached(l.phase) })),
    ended: reached(n),
    booked: Number(bookedRow?.booked ?? 0),
  };
}

/**
 * Up to this many conversations with a prospect message, the speed percentiles are exact (percentile_cont over
 * the rows); beyond, they come from the first-reply histograms (about ±5 %, docs/analytics.md "Fast at scale").
 */
export const SPEED_EXACT_LIMIT = 10_000;

/** Speed: seconds from the prospect's first message to the first reply (AGENT message), p50/p90. */
export async function speed(
  ctx: AppContext,
  actor: Actor,
  query: AnalyticsQuery,
  options: { exactLimit: number } = { exactLimit: SPEED_EXACT_LIMIT },
): Promise<SpeedResult> {
  const s = await scope(ctx, actor, query);
  const none = { p50: null, p90: null };
  if (s.empty) {
    return { firstReplySeconds: none, agentFirstReplySeconds: none, teamFirstReplySeconds: none, withProspectMessage: 0, replied: 0, answeredWithinMinuteShare: null };
  }
  // A range without a whole month is at most two months of rows: exact at once. exactLimit Infinity: the rows
  // only (bench/analytics.ts's "before").
  if (options.exactLimit === Number.POSITIVE_INFINITY || !wholeMonths(s.range.from, s.range.to)) return exactSpeed(ctx, s);
  const h = await speedHistograms(ctx, s, query);
  if (h.withProspectMessage <= options.exactLimit) return exactSpeed(ctx, s);
  const all = addCounts(h.agent, h.team);
  const pair = (histogram: Map<number, number>) => ({ p50: round(histogramPercentile(histogram, 0.5)), p90: round(histogramPercentile(histogram, 0.9)) });
  return {
    firstReplySeconds: pair(all),
    agentFirstReplySeconds: pair(h.agent),
    teamFirstReplySeconds: pair(h.team),
    withProspectMessage: h.withProspectMessage,
    replied: h.replied,
    answeredWithinMinuteShare: h.withinMinute / h.withProspectMessage,
  };
}

const round = (v: unknown) => (v === null || v === undefined ? null : Math.round(Number(v) * 1000) / 1000);
const firstReplySeconds = sql`extract(epoch from (${conversations.firstReplyAt} - ${conversations.firstProspectMessageAt}))::float8`;

/** The range's first-reply histograms: its whole months from the rollup, the rest bucketed from the rows. */
async function speedHistograms(ctx: AppContext, s: Scope, query: AnalyticsQuery): Promise<ReplyHistograms> {
  const c = conversations;
  const { rollup, rowsWhere } = split(s, query);
  const rows = await ctx.db
    .select({
      bucket: sql<number | null>`analytics_reply_bucket(${firstReplySeconds})`,
      byHuman: c.firstReplyByHuman,
      n: sql<number>`count(*)::int`,
      withinMinute: sql<number>`count(*) filter (where ${firstReplySeconds} <= 60)::int`,
    })
    .from(c)
    .where(and(rowsWhere, isNotNull(c.firstProspectMessageAt)))
    .groupBy(sql`1`, c.firstReplyByHuman);
  const h: ReplyHistograms = { withProspectMessage: 0, replied: 0, withinMinute: 0, agent: new Map(), team: new Map() };
  for (const r of rows) {
    const n = Number(r.n);
    h.withProspectMessage += n;
    h.withinMinute += Number(r.withinMinute);
    if (r.bucket === null) continue;
    h.replied += n;
    const histogram = r.byHuman ? h.team : h.agent;
    histogram.set(Number(r.bucket), (histogram.get(Number(r.bucket)) ?? 0) + n);
  }
  if (!rollup) return h;
  const m = await rollupSpeed(ctx, rollup);
  return {
    withProspectMessage: h.withProspectMessage + m.withProspectMessage,
    replied: h.replied + m.replied,
    withinMinute: h.withinMinute + m.withinMinute,
    agent: addCounts(h.agent, m.agent),
    team: addCounts(h.team, m.team),
  };
}

/** The exact percentiles (percentile_cont) over the range's rows. */
async function exactSpeed(ctx: AppContext, s: Scope): Promise<SpeedResult> {
  const c = conversations;
  const seconds = firstReplySeconds;
  const pct = (p: number, filter: SQL) => sql<number | null>`percentile_cont(${sql.raw(String(p))}) within group (order by ${seconds}) filter (where ${filter})`;
  const replied = sql`${c.firstReplyAt} is not null`;
  const byAgent = sql`${c.firstReplyAt} is not null and not ${c.firstReplyByHuman}`;
  const byTeam = sql`${c.firstReplyAt} is not null and ${c.firstReplyByHuman}`;
  const [row] = await ctx.db
    .select({
      p50: pct(0.5, replied),
      p90: pct(0.9, replied),
      agentP50: pct(0.5, byAgent),
      agentP90: pct(0.9, byAgent),
      teamP50: pct(0.5, byTeam),
      teamP90: pct(0.9, byTeam),
      withProspectMessage: sql<number>`count(*)::int`,
      replied: sql<number>`count(*) filter (where ${replied})::int`,
      withinMinute: sql<number>`count(*) filter (where ${replied} and ${seconds} <= 60)::int`,
    })
    .from(c)
    .where(and(s.where, isNotNull(c.firstProspectMessageAt)));
  const withProspect = Number(row?.withProspectMessage ?? 0);
  return {
    firstReplySeconds: { p50: round(row?.p50), p90: round(row?.p90) },
    agentFirstReplySeconds: { p50: round(row?.agentP50), p90: round(row?.agentP90) },
    teamFirstReplySeconds: { p50: round(row?.teamP50), p90: round(row?.teamP90) },
    withProspectMessage: withProspect,
    replied: Number(row?.replied ?? 0),
    answeredWithinMinuteShare: withProspect === 0 ? null : Number(row?.withinMinute ?? 0) / withProspect,
  };
}

/** The conversations behind one funnel step (newest first), for the screen's click-through. */
export async function funnelStepConversations(
  ctx: AppContext,
  actor: Actor,
  query: AnalyticsQuery & { step: 'started' | 'ended' | 'booked' | number; limit: number },
) {
  const s = await scope(ctx, actor, query);
  if (s.empty) return { conversations: [] };
  const c = conversations;
  const step =
    query.step === 'started'
      ? undefined
      : query.step === 'ended'
        ? gte(c.maxPhase, s.phaseCount)
        : query.step === 'booked'
          ? sql`exists (select 1 from ${bookings} b where b.conversation_id = ${c.id} and b.status = 'booked')`
          : gte(c.maxPhase, query.step);
  const rows = await ctx.db
    .select({ id: c.id, uuid: c.uuid, phase: c.phase, maxPhase: c.maxPhase, createdAt: c.createdAt })
    .from(c)
    .where(and(s.where, step))
    .orderBy(sql`${c.createdAt} desc, ${c.id} desc`)
    .limit(query.limit);
  return { conversations: rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })) };
}
