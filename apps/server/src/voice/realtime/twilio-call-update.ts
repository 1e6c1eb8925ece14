import type { LiveAccount } from '../../channels/accounts.ts';
import { twilioClient } from '../../channels/senders/twilio-client.ts';
import type { AppContext } from '../../context.ts';

/** Ends or redirects the live call through Twilio's REST API (Calls/{sid}.json update). */
export async function updateCall(ctx: AppContext, account: LiveAccount, callSid: string, update: { status: 'completed' } | { twiml: string }) {
  const accountSid = typeof account.config.accountSid === 'string' ? account.config.accountSid : '';
  if (!accountSid) throw new Error(`TWILIO account ${account.id} has no config.accountSid`);
  await twilioClient(ctx.config.TWILIO_API_URL!, accountSid, account.accessToken).calls(callSid).update(update);
}
