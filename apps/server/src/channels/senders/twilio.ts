import { configError, networkError, twilioError } from './errors.ts';
import { twilioClient } from './twilio-client.ts';
import type { ChannelSender } from '../types.ts';
import { TWILIO_ACCOUNT_SID } from '../account-config.ts';

/**
 * Twilio SMS through the official SDK (Messages create: form To, From, Body; Basic AccountSid:AuthToken),
 * pointed at TWILIO_API_URL. From = the account's number (pageId); the AccountSid is in the account config;
 * StatusCallback = PUBLIC_URL/api/twilio/sms-status.
 */
export const twilioSender: ChannelSender = {
  limit: { unit: 'chars', max: 1600 },
  async send(endpoints, account, part) {
    const accountSid = typeof account.config.accountSid === 'string' ? account.config.accountSid.trim() : '';
    if (!accountSid) {
      throw configError('This Twilio account has no accountSid in its config: set {"accountSid":"AC…"} on the messaging account.', 'TWILIO_ACCOUNT_SID_MISSING');
    }
    // The SDK throws in its constructor on a malformed SID, before any request: say which setting is wrong.
    if (!TWILIO_ACCOUNT_SID.test(accountSid)) {
      throw configError(
        `This Twilio account's accountSid "${accountSid.slice(0, 40)}" is not an Account SID: it starts with AC followed by 32 hexadecimal characters (Twilio Console, Account Info).`,
        'TWILIO_ACCOUNT_SID_INVALID',
      );
    }
    const call = {
      method: 'POST',
      url: `${endpoints.TWILIO_API_URL.replace(/\/+$/, '')}/2010-04-01/Accounts/${accountSid}/Messages.json`,
      secrets: [account.accessToken, Buffer.from(`${accountSid}:${account.accessToken}`).toString('base64')],
    };
    try {
      const client = twilioClient(endpoints.TWILIO_API_URL, accountSid, account.accessToken);
      // Twilio reports sent / delivered / undelivered / failed there (the message's delivery state, issue 24).
      const statusCallback = endpoints.PUBLIC_URL ? `${endpoints.PUBLIC_URL}/api/twilio/sms-status` : undefined;
      const message = await client.messages.create({ to: part.recipientId, from: account.pageId, body: part.text, ...(statusCallback ? { statusCallback } : {}) });
      return { externalId: message.sid };
    } catch (err) {
      // The SDK's RestException carries Twilio's error body; anything else never got an answer.
      const rest = err as { status?: unknown; code?: unknown; moreInfo?: unknown };
      if (typeof rest.status === 'number' && rest.status >= 400) throw twilioError(call, rest as Parameters<typeof twilioError>[1]);
      throw networkError(call, err);
    }
  },
};
