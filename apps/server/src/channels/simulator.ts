import { and, eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { prospects } from '../db/schema/index.ts';
import { badRequest, conflict } from '../lib/errors.ts';
import { findAccountByKey } from './accounts.ts';
import type { InboundEvent } from './inbound-events.ts';

/**
 * A simulated message must reach an account that exists, and must not come from a real prospect's id:
 * the agent's answer would then be sent to that real person.
 */
export async function checkSimulation(ctx: AppContext, events: InboundEvent[]): Promise<void> {
  const messages = events.filter((e) => e.kind === 'message');
  if (messages.length === 0) throw badRequest('The payload holds no message to simulate.', 'NOTHING_TO_SIMULATE');
  for (const event of messages) {
    const account = await findAccountByKey(ctx, event.channel, event.accountKey);
    if (!account) throw badRequest(`No ${event.channel} messaging account has the id ${event.accountKey}.`, 'NO_SUCH_ACCOUNT');
    const [real] = await ctx.db
      .select({ id: prospects.id })
      .from(prospects)
      .where(and(eq(prospects.messagingAccountId, account.id), eq(prospects.externalId, event.senderId), eq(prospects.simulated, false)))
      .limit(1);
    if (real) throw conflict(`${event.senderId} is a real prospect of this account; simulate with another sender.`, 'REAL_PROSPECT');
  }
}
