import type { ChannelSender, ChannelType } from '../types.ts';
import { instagramSender, messengerSender, whatsAppSender } from './meta.ts';
import { smsGatewaySender } from './sms-gateway.ts';
import { twilioSender } from './twilio.ts';

const SENDERS: Record<ChannelType, ChannelSender> = {
  INSTAGRAM: instagramSender,
  FACEBOOK: messengerSender,
  WHATSAPP: whatsAppSender,
  TWILIO: twilioSender,
  SMS_GATEWAY: smsGatewaySender,
};

/** The sender of a channel type (docs/channels.md, "Outbound"). */
export function senderFor(type: ChannelType): ChannelSender {
  return SENDERS[type];
}
