import { Badge } from '@mantine/core';
import type { AccountType } from '@sales-agent/shared/enums';

/**
 * What each messaging account type is called as a channel (issue #8). FACEBOOK accounts are Pages, whose
 * conversations happen in Messenger; a conversation without a prospect is a web chat.
 */
export const CHANNEL_LABELS: Record<AccountType, string> = {
  INSTAGRAM: 'Instagram',
  FACEBOOK: 'Messenger',
  WHATSAPP: 'WhatsApp',
  TWILIO: 'Twilio SMS',
  SMS_GATEWAY: 'SMS gateway',
};
export const WEB_CHAT_LABEL = 'Web chat';

const COLORS: Record<AccountType | 'WEB', string> = {
  INSTAGRAM: 'pink',
  FACEBOOK: 'blue',
  WHATSAPP: 'teal',
  TWILIO: 'red',
  SMS_GATEWAY: 'orange',
  WEB: 'gray',
};

/** The channel's label; null or undefined (no prospect) is a web chat. */
export function channelLabel(type: string | null | undefined): string {
  if (!type) return WEB_CHAT_LABEL;
  return CHANNEL_LABELS[type as AccountType] ?? type;
}

/** A coloured badge naming the channel a conversation runs on. */
export function ChannelBadge(props: { type: string | null | undefined; size?: 'xs' | 'sm' | 'md' }) {
  const color = props.type ? (COLORS[props.type as AccountType] ?? 'gray') : COLORS.WEB;
  return (
    <Badge
      variant="light"
      color={color}
      size={props.size ?? 'sm'}
      data-testid="channel"
      data-channel={props.type ?? 'WEB'}
      // Never cut to "WHAT…" in a narrow table cell: the label is short and must stay whole.
      styles={{ root: { flexShrink: 0, overflow: 'visible' }, label: { overflow: 'visible' } }}
    >
      {channelLabel(props.type)}
    </Badge>
  );
}
