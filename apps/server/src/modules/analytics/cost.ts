import { sql } from 'drizzle-orm';
import type { AnalyticsQuery, CostResult, CostRow } from '@sales-agent/shared/schemas/analytics';
import type { Actor, AppContext } from '../../context.ts';
import { bookings, conversations, messagingAccounts } from '../../db/schema/index.ts';
import { callPrices } from '../../voice/call-costs.ts';
import { scope } from './analytics.service.ts';

/**
 * Cost (docs/analytics.md "Cost"), from the per-conversation totals the product books as it spends
 * (agent/ask-llm.ts, voice/call-costs.ts): LLM = cost_usd − call_cost_usd; voice = text to speech (tts_characters
 * at the price list's TTS price); telephony = the rest of call_cost_usd (call minutes, speech recognition,
 * recording). Per conversation started in the range, per booked meeting, and per channel.
 */
export async function cost(ctx: AppContext, actor: Actor, query: AnalyticsQuery): Promise<CostResult> {
  const s = await scope(ctx, actor, query);
  if (s.empty) return { total: costRow('ALL', 0, 0, 0, 0, 0), byChannel: [] };
  const c = conversations;
  const ttsPrice = callPrices(ctx.config).tts.perMillionCharacters / 1_000_000;
  const channel = sql<string>`case when ${c.callSid} is not null then 'CALL' when ${c.messagingAccountId} is null then 'WEB'
    else (select ma.type from ${messagingAccounts} ma where ma.id = "conversations"."messaging_account_id") end`;
  // Select-list columns render unqualified, so correlated subqueries name the outer row explicitly.
  const voice = sql`${c.ttsCharacters} * ${ttsPrice}::float8`;
  const rows = await ctx.db
    .select({
      channel,
      conversations: sql<number>`count(*)::int`,
      booked: sql<number>`count(*) filter (where exists (select 1 from ${bookings} b where b.conversation_id = "conversations"."id" and b.status = 'booked'))::int`,
      llm: sql<number>`coalesce(sum(${c.costUsd} - ${c.callCostUsd}), 0)::float8`,
      voice: sql<number>`coalesce(sum(${voice}), 0)::float8`,
      telephony: sql<number>`coalesce(sum(${c.callCostUsd} - ${voice}), 0)::float8`,
    })
    .from(c)
    .where(s.where)
    .groupBy(sql`1`)
    .orderBy(sql`1`);
  const byChannel = rows.map((r) => costRow(r.channel, Number(r.conversations), Number(r.booked), Number(r.llm), Number(r.voice), Number(r.telephony)));
  const sum = (k: 'conversations' | 'booked' | 'llmUsd' | 'voiceUsd' | 'telephonyUsd') => byChannel.reduce((n, r) => n + r[k], 0);
  return { total: costRow('ALL', sum('conversations'), sum('booked'), sum('llmUsd'), sum('voiceUsd'), sum('telephonyUsd')), byChannel };
}

/** Dollars rounded to 1/10000 of a cent (sums of floating-point costs). */
const usd = (v: number) => Math.round(v * 1e6) / 1e6;

function costRow(channel: string, conversations: number, booked: number, llm: number, voice: number, telephony: number): CostRow {
  const total = llm + voice + telephony;
  return {
    channel,
    conversations,
    booked,
    llmUsd: usd(llm),
    voiceUsd: usd(voice),
    telephonyUsd: usd(telephony),
    totalUsd: usd(total),
    perConversationUsd: conversations === 0 ? null : usd(total / conversations),
    perBookedUsd: booked === 0 ? null : usd(total / booked),
  };
}
