import { graphBase, graphCall } from './graph.ts';
import { configError } from './errors.ts';
import type { ChannelSender } from '../types.ts';

/**
 * Instagram and Messenger: `POST /{version}/me/messages` with the Page (or Instagram Login) token.
 * Within 24 h of the prospect's last message: `messaging_type: RESPONSE`; a person's message after that (up to
 * 7 days) goes as `MESSAGE_TAG` with `tag: HUMAN_AGENT` — windows.ts decides, the sender only obeys.
 */
function metaMessagesSender(limit: ChannelSender['limit']): ChannelSender {
  return {
    limit,
    async send(endpoints, account, part) {
      const url = `${graphBase(endpoints, account)}/${endpoints.META_GRAPH_VERSION}/me/messages`;
      const body = {
        recipient: { id: part.recipientId },
        ...(part.humanAgentTag ? { messaging_type: 'MESSAGE_TAG', tag: 'HUMAN_AGENT' } : { messaging_type: 'RESPONSE' }),
        message: { text: part.text },
      };
      const answer = await graphCall<{ recipient_id?: string; message_id?: string }>('POST', url, account.accessToken, body);
      if (!answer.message_id) throw configError('The Graph API accepted the message but answered no message_id.', 'NO_MESSAGE_ID');
      return { externalId: answer.message_id };
    },
  };
}

/** Instagram's limit is 1,000 bytes of UTF-8 (emoji and accents count double or more). */
export const instagramSender = metaMessagesSender({ unit: 'bytes', max: 1000 });
export const messengerSender = metaMessagesSender({ unit: 'chars', max: 2000 });

/**
 * WhatsApp Cloud: `POST /{version}/{phone_number_id}/messages` with the system-user token. Inside 24 h a text
 * message; outside, the account's approved template (windows.ts picks it). A prospect known only by a
 * business-scoped user id (a WhatsApp username user, e.g. `US.13491208655302741918`) is addressed with
 * `recipient` instead of `to` (Meta's "business-scoped user IDs" guide: `to` takes a phone number, `recipient`
 * a BSUID or parent BSUID).
 */
export const whatsAppSender: ChannelSender = {
  limit: { unit: 'chars', max: 4096 },
  async send(endpoints, account, part) {
    const url = `${endpoints.META_GRAPH_URL.replace(/\/+$/, '')}/${endpoints.META_GRAPH_VERSION}/${encodeURIComponent(account.pageId)}/messages`;
    const address = isPhoneNumber(part.recipientId) ? { to: part.recipientId } : { recipient: part.recipientId };
    const body = part.template
      ? {
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          ...address,
          type: 'template',
          template: {
            name: part.template.name,
            language: { code: part.template.language },
            ...(part.template.components ? { components: part.template.components } : {}),
          },
        }
      : { messaging_product: 'whatsapp', recipient_type: 'individual', ...address, type: 'text', text: { body: part.text } };
    const answer = await graphCall<{ messages?: { id?: string }[] }>('POST', url, account.accessToken, body);
    const id = answer.messages?.[0]?.id;
    if (!id) throw configError('WhatsApp accepted the message but answered no message id.', 'NO_MESSAGE_ID');
    return { externalId: id };
  },
};

/** A wa_id / phone number (digits, maybe a leading +), as opposed to a business-scoped user id ("US.1349…"). */
const isPhoneNumber = (id: string) => /^\+?\d+$/.test(id);
