import { Badge } from '@mantine/core';

const COLORS: Record<string, string> = {
  draft: 'gray',
  running: 'blue',
  paused: 'yellow',
  stopped: 'red',
  finished: 'green',
  queued: 'gray',
  calling: 'blue',
  answered: 'green',
  sent: 'green',
  booked: 'teal',
  voicemail: 'grape',
  no_answer: 'orange',
  busy: 'orange',
  failed: 'red',
  opted_out: 'red',
};

/** A campaign's or a contact's status in words ("no answer", "opted out"). */
export function CampaignStatusBadge({ status }: { status: string }) {
  return (
    <Badge color={COLORS[status] ?? 'gray'} variant="light" data-testid="campaign-status">
      {status.replace('_', ' ')}
    </Badge>
  );
}
