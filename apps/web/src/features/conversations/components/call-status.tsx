import { Anchor, Badge, Group, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { callInfoQuery } from '../../calls/api/calls.ts';

const STATUS_TEXT: Record<string, { label: string; color: string }> = {
  queued: { label: 'Queued', color: 'gray' },
  initiated: { label: 'Dialing', color: 'gray' },
  ringing: { label: 'Ringing', color: 'blue' },
  'in-progress': { label: 'In progress', color: 'green' },
  completed: { label: 'Completed', color: 'teal' },
  busy: { label: 'Busy', color: 'orange' },
  'no-answer': { label: 'No answer', color: 'orange' },
  failed: { label: 'Failed', color: 'red' },
  canceled: { label: 'Canceled', color: 'gray' },
  voicemail: { label: 'Voicemail', color: 'grape' },
};

const usd = (value: number) => `$${value.toFixed(value > 0 && value < 0.01 ? 4 : 2)}`;
const minutesSeconds = (seconds: number) => `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;

/**
 * The phone call behind a conversation (docs/voice.md): status (live while the call runs), direction, engine,
 * answering-machine verdict, length, the agent's response latency (realtime), recording and cost. Renders nothing for chats.
 */
export function CallStatus({ uuid }: { uuid: string }) {
  const query = useQuery(callInfoQuery(uuid));
  const call = query.data?.call;
  if (!call) return null;
  const status = STATUS_TEXT[call.status ?? ''] ?? { label: call.status ?? 'Unknown', color: 'gray' };
  return (
    <Group gap="xs" data-testid="call-status" aria-live="polite">
      <Badge color={status.color} variant="filled" data-testid="call-status-badge">
        Call: {status.label}
      </Badge>
      <Badge variant="outline" color="gray">
        {call.direction === 'inbound' ? 'Inbound' : 'Outbound'} · {call.useRealtimeApi === false ? 'Classic voice' : 'Realtime voice'}
      </Badge>
      {call.answeredBy && call.answeredBy !== 'unknown' && (
        <Badge variant="light" color={call.answeredBy === 'human' ? 'teal' : 'grape'}>
          Answered by {call.answeredBy === 'human' ? 'a person' : call.answeredBy.startsWith('machine') ? 'a machine' : call.answeredBy}
        </Badge>
      )}
      {call.duration !== null && <Text size="sm">Length {minutesSeconds(call.duration)}</Text>}
      {call.recordingUrl && (
        <Anchor size="sm" href={call.recordingUrl} target="_blank" rel="noreferrer">
          Listen{call.recordingDuration !== null ? ` (${minutesSeconds(call.recordingDuration)})` : ''}
        </Anchor>
      )}
      {call.responseLatencyMs.turns > 0 && (
        <Text size="sm" data-testid="call-latency" title="The agent's response latency: the caller stops speaking → the first audio of the answer is sent">
          Response p50 {call.responseLatencyMs.p50} ms / p90 {call.responseLatencyMs.p90} ms ({call.responseLatencyMs.turns} turns)
        </Text>
      )}
      <Text size="sm" c="dimmed" title="Telephony, speech and text to speech; the total adds the LLM tokens">
        Cost {usd(call.totalCostUsd)} (call {usd(call.callCostUsd)})
      </Text>
    </Group>
  );
}
