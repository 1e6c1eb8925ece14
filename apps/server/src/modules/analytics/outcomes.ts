import { eq, type SQL, sql } from 'drizzle-orm';
import type { AnalyticsQuery, OutcomesResult } from '@sales-agent/shared/schemas/analytics';
import type { Actor, AppContext } from '../../context.ts';
import { conversationAnalyses, conversations } from '../../db/schema/index.ts';
import { scope } from './analytics.service.ts';

export const OUTCOMES = ['ended', 'needsHuman', 'errored', 'ignored', 'noResponse', 'inProgress'] as const;

/**
 * A conversation's outcome by its state (docs/analytics.md "Outcomes"), for a conversation without an outcome
 * analysis, first match wins: ended (reached phase N), needs human (-2), errored (-1), ignored (9999), no response
 * (the prospect never wrote), else in progress.
 */
function stateOutcomeSql(phaseCount: number): SQL<string> {
  const c = conversations;
  return sql<string>`case
    when ${c.maxPhase} >= ${phaseCount} then 'ended'
    when ${c.phase} = -2 then 'needsHuman'
    when ${c.phase} = -1 then 'errored'
    when ${c.phase} = 9999 then 'ignored'
    when ${c.firstProspectMessageAt} is null then 'noResponse'
    else 'inProgress' end`;
}

type StateCounts = Record<(typeof OUTCOMES)[number], number>;

/**
 * Outcomes per day (UTC) of the conversations created in the range; days without conversations are left out. A
 * conversation with an outcome analysis (issue 22, conversation_analyses) counts under its analysed outcome (the
 * type's own words, e.g. "booked"); the others under their state.
 */
export async function outcomes(ctx: AppContext, actor: Actor, query: AnalyticsQuery): Promise<OutcomesResult> {
  const s = await scope(ctx, actor, query);
  if (s.empty) return { analysedOutcomes: [], days: [] };
  const c = conversations;
  const a = conversationAnalyses;
  const rows = await ctx.db
    .select({
      day: sql<string>`to_char(${c.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`,
      analysed: a.outcome,
      state: sql<string | null>`case when ${a.outcome} is null then ${stateOutcomeSql(s.phaseCount)} end`,
      n: sql<number>`count(*)::int`,
    })
    .from(c)
    .leftJoin(a, eq(a.conversationId, c.id))
    .where(s.where)
    .groupBy(sql`1, 2, 3`)
    .orderBy(sql`1`);
  const days = new Map<string, StateCounts & { analysed: Record<string, number> }>();
  const analysedTotals = new Map<string, number>();
  for (const r of rows) {
    let d = days.get(r.day);
    if (!d) days.set(r.day, (d = { ...(Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as StateCounts), analysed: {} }));
    const n = Number(r.n);
    if (r.analysed !== null) {
      d.analysed[r.analysed] = n;
      analysedTotals.set(r.analysed, (analysedTotals.get(r.analysed) ?? 0) + n);
    } else d[r.state as (typeof OUTCOMES)[number]] = n;
  }
  return {
    // Most frequent first, then by name: the order of the screen's columns and series.
    analysedOutcomes: [...analysedTotals].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0])).map(([name]) => name),
    days: [...days].map(([day, counts]) => ({ day, ...counts })),
  };
}
