import { and, eq, gte, inArray, lt, not, type SQL, sql } from 'drizzle-orm';
import type { AnalyticsQuery } from '@sales-agent/shared/schemas/analytics';
import type { AppContext } from '../../context.ts';
import { rowsOf } from '../../lib/limits.ts';
import { analyticsMonthly } from '../../db/schema/index.ts';

/**
 * Reading analytics_monthly (docs/analytics.md "Fast at scale"): the funnel and speed figures of the whole UTC
 * months inside a range, one row per month and filter keys, kept by the triggers of migration
 * "analytics-monthly-triggers". The rest of the range (its partial first and last months) is read from the
 * conversations themselves (analytics.service.ts), so every figure covers exactly [from, to).
 */

/** The whole UTC months inside [from, to) as [start, end) month starts, or null when there is none. */
export function wholeMonths(from: Date, to: Date): { start: Date; end: Date } | null {
  const startsMonth = from.getTime() === Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), 1);
  const start = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + (startsMonth ? 0 : 1), 1));
  const end = new Date(Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), 1));
  return start < end ? { start, end } : null;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** The screen's filters over analytics_monthly rows of those months (the rollup's keys mirror scope()'s WHERE). */
export function rollupWhere(
  query: AnalyticsQuery,
  { granted, channelAccounts }: { granted: number[] | 'all'; channelAccounts: number[] | null },
  months: { start: Date; end: Date },
): SQL {
  const r = analyticsMonthly;
  const channel = query.channel;
  const version = query.version;
  return and(
    eq(r.conversationTypeId, query.conversationType),
    gte(r.month, day(months.start)),
    lt(r.month, day(months.end)),
    granted === 'all' ? undefined : inArray(r.messagingAccountId, granted),
    query.messagingAccount === undefined ? undefined : eq(r.messagingAccountId, query.messagingAccount),
    channel === undefined
      ? undefined
      : channel === 'CALL'
        ? eq(r.isCall, true)
        : channel === 'WEB'
          ? and(eq(r.messagingAccountId, 0), not(r.isCall))
          : and(not(r.isCall), inArray(r.messagingAccountId, channelAccounts ?? [])),
    version === undefined ? undefined : eq(r.typeVersion, version === 'draft' ? 0 : Number(version)),
  )!;
}

/** Sums counter-array columns over the rows, element by element (one pass, the arrays zipped): subscript → count, per column. */
async function sumCounters(ctx: AppContext, columns: SQL[], where: SQL): Promise<Map<number, number>[]> {
  const names = columns.map((_, k) => sql.raw(`n${k}`));
  const rows = rowsOf<Record<string, number>>(
    await ctx.db.execute(sql`select u.i::int as i, ${sql.join(names.map((n) => sql`sum(u.${n})::int as ${n}`), sql`, `)}
        from ${analyticsMonthly}, unnest(${sql.join(columns, sql`, `)}) with ordinality u(${sql.join(names, sql`, `)}, i)
        where ${where} group by u.i`),
  );
  return columns.map((_, k) => new Map(rows.filter((r) => Number(r[`n${k}`] ?? 0) !== 0).map((r) => [Number(r.i), Number(r[`n${k}`])])));
}

/** Conversations started, and per max phase (-1: none) how many, in the rollup's months. */
export async function rollupFunnel(ctx: AppContext, where: SQL): Promise<{ started: number; byMaxPhase: Map<number, number> }> {
  const [counts] = await sumCounters(ctx, [sql`${analyticsMonthly.maxPhaseCounts}`], where);
  // Subscript 1 is max_phase null, k + 2 is max_phase k; every conversation is in exactly one.
  const started = [...counts.values()].reduce((sum, n) => sum + n, 0);
  return { started, byMaxPhase: new Map([...counts].map(([i, n]) => [i - 2, n])) };
}

/** First-reply histograms: bucket (analytics_reply_bucket) → conversations, the AI's and the team's. */
export interface ReplyHistograms {
  withProspectMessage: number;
  replied: number;
  withinMinute: number;
  agent: Map<number, number>;
  team: Map<number, number>;
}

export async function rollupSpeed(ctx: AppContext, where: SQL): Promise<ReplyHistograms> {
  const r = analyticsMonthly;
  const [row] = rowsOf<{ w: number; r: number; m: number }>(
    await ctx.db.execute(sql`select coalesce(sum(${r.withProspectMessage}), 0)::int as w, coalesce(sum(${r.replied}), 0)::int as r,
               coalesce(sum(${r.withinMinute}), 0)::int as m from ${r} where ${where}`),
  );
  const shift = (m: Map<number, number>) => new Map([...m].map(([i, n]) => [i - 1, n]));
  const [agent, team] = await sumCounters(ctx, [sql`${r.agentReplyBuckets}`, sql`${r.teamReplyBuckets}`], where);
  return {
    withProspectMessage: Number(row?.w ?? 0),
    replied: Number(row?.r ?? 0),
    withinMinute: Number(row?.m ?? 0),
    agent: shift(agent),
    team: shift(team),
  };
}

/** Adds `b` into `a` (bucket or phase → count maps). */
export function addCounts(a: Map<number, number>, b: Map<number, number>): Map<number, number> {
  const sum = new Map(a);
  for (const [k, n] of b) sum.set(k, (sum.get(k) ?? 0) + n);
  return sum;
}

/**
 * A bucket's value in seconds: the geometric middle of [1.1^(b-1), 1.1^b) (bucket 0, under a second: 0.5), so a
 * percentile read from the histogram is within about ±5 % of the exact one.
 */
export const bucketSeconds = (bucket: number) => (bucket === 0 ? 0.5 : 1.1 ** (bucket - 0.5));

/** The p-th percentile (0..1) of a histogram, interpolated between ranks as percentile_cont does; null when empty. */
export function histogramPercentile(histogram: Map<number, number>, p: number): number | null {
  const buckets = [...histogram].filter(([, n]) => n > 0).sort(([a], [b]) => a - b);
  const total = buckets.reduce((s, [, n]) => s + n, 0);
  if (total === 0) return null;
  const valueAt = (rank: number) => {
    let seen = 0;
    for (const [bucket, n] of buckets) {
      seen += n;
      if (rank < seen) return bucketSeconds(bucket);
    }
    return bucketSeconds(buckets[buckets.length - 1][0]);
  };
  const rank = p * (total - 1);
  const lo = Math.floor(rank);
  const low = valueAt(lo);
  return low + (valueAt(Math.ceil(rank)) - low) * (rank - lo);
}
