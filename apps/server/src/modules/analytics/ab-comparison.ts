import { and, desc, eq, gte, or, sql } from 'drizzle-orm';
import type { AbComparison, AnalyticsQuery } from '@sales-agent/shared/schemas/analytics';
import type { Actor, AppContext } from '../../context.ts';
import { abTests, bookings, conversations } from '../../db/schema/index.ts';
import { notFound } from '../../lib/errors.ts';
import { presentAbTest } from '../ab-tests/ab-tests.service.ts';
import { funnel, scope } from './analytics.service.ts';
import { twoProportionTest, wilsonInterval } from './proportions.ts';

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;
const pText = (p: number) => (p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`);

/**
 * The arms of a type's A/B test (the given one, else its newest) compared over the screen's filters: a conversation
 * converted when it ended (reached phase N) or booked a meeting (docs/analytics.md "A/B tests").
 */
export async function abComparison(ctx: AppContext, actor: Actor, query: AnalyticsQuery & { abTest?: number }): Promise<AbComparison> {
  const [row] = await ctx.db
    .select()
    .from(abTests)
    .where(and(eq(abTests.conversationTypeId, query.conversationType), query.abTest === undefined ? undefined : eq(abTests.id, query.abTest)))
    .orderBy(desc(abTests.id))
    .limit(1);
  if (!row) {
    if (query.abTest !== undefined) throw notFound('No such A/B test of this conversation type.', 'NOT_FOUND');
    await scope(ctx, actor, query); // 400/404 for the filters as the other figures
    return { test: null, arms: [], comparison: null, verdict: 'No A/B test of this conversation type yet.' };
  }
  const c = conversations;
  const arms = [];
  for (const arm of ['A', 'B'] as const) {
    const ofArm = and(eq(c.abTestId, row.id), eq(c.abArm, arm))!;
    const armFunnel = await funnel(ctx, actor, query, ofArm);
    const s = await scope(ctx, actor, query, ofArm);
    const booked = sql`exists (select 1 from ${bookings} b where b.conversation_id = ${c.id} and b.status = 'booked')`;
    const [counted] = s.empty
      ? [{ converted: 0 }]
      : await ctx.db.select({ converted: sql<number>`count(*)::int` }).from(c).where(and(s.where, or(gte(c.maxPhase, s.phaseCount), booked)));
    const converted = Number(counted?.converted ?? 0);
    arms.push({
      arm,
      version: arm === 'A' ? row.versionA : row.versionB,
      funnel: armFunnel,
      converted,
      conversionRate: armFunnel.started === 0 ? null : converted / armFunnel.started,
      interval: wilsonInterval(converted, armFunnel.started),
    });
  }
  const [a, b] = arms;
  const comparison = twoProportionTest(a.converted, a.funnel.started, b.converted, b.funnel.started);
  let verdict: string;
  if (!comparison) verdict = 'Not enough data yet: both arms need conversations in the chosen range before they can be compared.';
  else if (!comparison.significant) {
    verdict = `The difference is not yet significant (${pText(comparison.pValue)}): version ${b.version} converts ${percent(b.conversionRate!)} and version ${a.version} ${percent(a.conversionRate!)}, which may still be chance. Keep the test running for more conversations.`;
  } else {
    const [better, worse] = comparison.difference > 0 ? [b, a] : [a, b];
    verdict = `Version ${better.version} (arm ${better.arm}) converts better than version ${worse.version} (arm ${worse.arm}): ${percent(better.conversionRate!)} against ${percent(worse.conversionRate!)} (${pText(comparison.pValue)}, significant at 95 %).`;
  }
  return { test: presentAbTest(row), arms, comparison, verdict };
}
