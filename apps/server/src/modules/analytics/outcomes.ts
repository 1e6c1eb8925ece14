import { type SQL, sql } from 'drizzle-orm';
import type { AnalyticsQuery, OutcomesResult } from '@sales-agent/shared/schemas/analytics';
import type { Actor, AppContext } from '../../context.ts';
import { conversations } from '../../db/schema/index.ts';
import { scope } from './analytics.service.ts';

export const OUTCOMES = ['ended', 'needsHuman', 'errored', 'ignored', 'noResponse', 'inProgress'] as const;

/**
 * A conversation's outcome, from its state (docs/analytics.md "Outcomes"), first match wins: ended (reached phase
 * N), needs human (-2), errored (-1), ignored (9999), no response (the prospect never wrote), else in progress.
 *
 * SEAM(outcome analysis, issue 22/act22): when the `analysis` table with an `outcome` per conversation exists,
 * prefer it here — `coalesce((select a.outcome from analysis a where a.conversation_id = "conversations"."id"),
 * <this case>)` — and add its outcome names to OUTCOMES / the shared schema; the rest of the figure is unchanged.
 */
function outcomeSql(phaseCount: number): SQL<string> {
  const c = conversations;
  return sql<string>`case
    when ${c.maxPhase} >= ${phaseCount} then 'ended'
    when ${c.phase} = -2 then 'needsHuman'
    when ${c.phase} = -1 then 'errored'
    when ${c.phase} = 9999 then 'ignored'
    when ${c.firstProspectMessageAt} is null then 'noResponse'
    else 'inProgress' end`;
}

/** Outcomes per day (UTC) of the conversations created in the range; days without conversations are left out. */
export async function outcomes(ctx: AppContext, actor: Actor, query: AnalyticsQuery): Promise<OutcomesResult> {
  const s = await scope(ctx, actor, query);
  if (s.empty) return { days: [] };
  const c = conversations;
  const outcome = outcomeSql(s.phaseCount);
  const rows = await ctx.db
    .select({
      day: sql<string>`to_char(${c.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`,
      outcome,
      n: sql<number>`count(*)::int`,
    })
    .from(c)
    .where(s.where)
    .groupBy(sql`1, 2`)
    .orderBy(sql`1`);
  const days = new Map<string, Record<(typeof OUTCOMES)[number], number>>();
  for (const r of rows) {
    let d = days.get(r.day);
    if (!d) days.set(r.day, (d = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<(typeof OUTCOMES)[number], number>));
    d[r.outcome as (typeof OUTCOMES)[number]] = Number(r.n);
  }
  return { days: [...days].map(([day, counts]) => ({ day, ...counts })) };
}
