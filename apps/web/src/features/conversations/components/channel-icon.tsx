import { Box } from '@mantine/core';
import {
  IconBrandInstagram,
  IconBrandMessenger,
  IconBrandWhatsapp,
  IconMessage,
  IconPhone,
  IconWorld,
} from '@tabler/icons-react';
import type { CSSProperties } from 'react';
import { channelLabel } from '../../../components/channel-badge.tsx';

const ICON = { size: 18, stroke: 1.8, 'aria-hidden': true } as const;

/** A maintained icon per channel (issue 12); the label goes with it for screen readers. */
export function ChannelIcon({ type }: { type: string | null | undefined }) {
  const icon =
    type === 'INSTAGRAM' ? (
      <IconBrandInstagram {...ICON} />
    ) : type === 'FACEBOOK' ? (
      <IconBrandMessenger {...ICON} />
    ) : type === 'WHATSAPP' ? (
      <IconBrandWhatsapp {...ICON} />
    ) : type === 'TWILIO' ? (
      <IconPhone {...ICON} />
    ) : type === 'SMS_GATEWAY' ? (
      <IconMessage {...ICON} />
    ) : (
      <IconWorld {...ICON} />
    );
  return (
    <Box component="span" title={channelLabel(type)} style={{ display: 'inline-flex' }} data-testid="channel-icon">
      {icon}
      <span className="visually-hidden" style={visuallyHidden}>
        {channelLabel(type)}
      </span>
    </Box>
  );
}

const visuallyHidden: CSSProperties = {
  position: 'absolute',
  width: 1,
  height: 1,
  overflow: 'hidden',
  clip: 'rect(0 0 0 0)',
  whiteSpace: 'nowrap',
};

