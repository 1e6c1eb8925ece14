import { and, isNotNull, sql } from 'drizzle-orm';
import type { AnalyticsQuery, VoiceResult } from '@sales-agent/shared/schemas/analytics';
import type { Actor, AppContext } from '../../context.ts';
import { conversations } from '../../db/schema/index.ts';
import { scope } from './analytics.service.ts';

/**
 * Voice figures (docs/analytics.md "Voice") over the call conversations created in the range, from the call's
 * Twilio status, answering-machine verdict and billed duration: a call is **picked up** when a person answered
 * (answered_by human, or no verdict and the call was connected: in-progress/completed with a duration), **voicemail**
 * when a machine answered (answered_by machine_* / fax, or status voicemail). The response latency is every turn
 * the realtime bridge measured on those calls (voice/realtime/response-latency.ts).
 */
export async function voice(ctx: AppContext, actor: Actor, query: AnalyticsQuery): Promise<VoiceResult> {
  const s = await scope(ctx, actor, query);
  const none: VoiceResult = {
    calls: 0, inbound: 0, outbound: 0, pickedUp: 0, voicemail: 0, pickUpRate: null, voicemailRate: null, averageDurationSeconds: null,
    responseLatencyMs: { p50: null, p90: null }, latencyCalls: 0,
  };
  if (s.empty) return none;
  const c = conversations;
  const machine = sql`(coalesce(${c.answeredBy}, '') like 'machine%' or coalesce(${c.answeredBy}, '') = 'fax' or coalesce(${c.callStatus}, '') = 'voicemail')`;
  const [row] = await ctx.db
    .select({
      calls: sql<number>`count(*)::int`,
      inbound: sql<number>`count(*) filter (where ${c.callDirection} = 'inbound')::int`,
      outbound: sql<number>`count(*) filter (where ${c.callDirection} = 'outbound')::int`,
      voicemail: sql<number>`count(*) filter (where ${machine})::int`,
      pickedUp: sql<number>`count(*) filter (where not ${machine} and (${c.answeredBy} = 'human'
        or (${c.answeredBy} is null and ${c.callStatus} in ('in-progress', 'completed') and coalesce(${c.callDuration}, 0) > 0)))::int`,
      averageDuration: sql<number | null>`avg(${c.callDuration})::float8`,
    })
    .from(c)
    .where(and(s.where, isNotNull(c.callSid)));
  const calls = Number(row?.calls ?? 0);
  if (calls === 0) return none;
  // Every measured turn of the calls (response_latencies_ms, kept by the realtime bridge) in one distribution.
  const [latency] = await ctx.db
    .select({
      p50: sql<number | null>`percentile_cont(0.5) within group (order by ms)`,
      p90: sql<number | null>`percentile_cont(0.9) within group (order by ms)`,
      calls: sql<number>`count(distinct ${c.id})::int`,
    })
    .from(sql`${c} cross join lateral unnest(${c.responseLatenciesMs}) as ms`)
    .where(and(s.where, isNotNull(c.callSid), isNotNull(c.responseLatenciesMs)));
  const ms = (v: unknown) => (v === null || v === undefined ? null : Math.round(Number(v)));
  const pickedUp = Number(row.pickedUp);
  const voicemail = Number(row.voicemail);
  return {
    calls,
    inbound: Number(row.inbound),
    outbound: Number(row.outbound),
    pickedUp,
    voicemail,
    pickUpRate: pickedUp / calls,
    voicemailRate: voicemail / calls,
    averageDurationSeconds: row.averageDuration === null ? null : Math.round(Number(row.averageDuration) * 10) / 10,
    responseLatencyMs: { p50: ms(latency?.p50), p90: ms(latency?.p90) },
    latencyCalls: Number(latency?.calls ?? 0),
  };
}
