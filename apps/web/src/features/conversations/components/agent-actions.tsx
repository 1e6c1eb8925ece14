import { Badge, Code, Group, Stack, Text } from '@mantine/core';
import type { ConversationDetail } from '@sales-agent/shared/schemas/conversation';

/** "Fri, 27 Nov 2026, 10:00 (UTC)": a booking in the time zone it was confirmed to the prospect in. */
function when(iso: string, timeZone: string): string {
  const text = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso));
  return `${text} (${timeZone})`;
}

/**
 * What the agent did on the conversation (issue 22): its booked meetings, and for admins one compact line per
 * tool call (name, arguments, outcome) — tool calls are never part of the prospect's thread.
 */
export function AgentActions({ conversation }: { conversation: ConversationDetail }) {
  const bookings = conversation.bookings ?? [];
  const calls = conversation.toolCalls ?? [];
  const analysis = conversation.analysis ?? null;
  if (bookings.length === 0 && calls.length === 0 && !analysis) return null;
  return (
    <Stack gap={4} data-testid="agent-actions">
      {analysis && <OutcomeAnalysis analysis={analysis} />}
      <Bookings bookings={bookings} />
      {calls.map((c, i) => (
        <Text key={i} size="xs" c={c.ok ? 'dimmed' : 'red'} data-testid="tool-call">
          Tool <Code>{c.name}</Code> {c.ok ? 'answered' : 'failed'} in {c.durationMs} ms
          {c.ok ? '' : `: ${c.result}`}
        </Text>
      ))}
    </Stack>
  );
}

/** The booked meetings (issue 22), each with its state, time in the prospect's zone and calendar. */
export function Bookings({ bookings }: { bookings: ConversationDetail['bookings'] }) {
  return bookings.map((b) => (
    <Group key={`${b.provider}-${b.externalId}`} gap="xs" data-testid="booking">
      <Badge color={b.status === 'booked' ? 'green' : 'gray'} variant="light">
        {b.status === 'booked' ? 'Meeting booked' : b.status === 'rescheduled' ? 'Meeting moved' : 'Meeting cancelled'}
      </Badge>
      <Text size="sm">{when(b.start, b.timeZone)}</Text>
      <Text size="xs" c="dimmed">
        via {b.provider === 'calcom' ? 'Cal.com' : b.provider === 'ghl' ? 'GoHighLevel' : 'demo calendar'}
      </Text>
    </Group>
  ));
}

/** The outcome analysis of an ended conversation (issue 22): outcome, score and summary. */
function OutcomeAnalysis({ analysis }: { analysis: NonNullable<ConversationDetail['analysis']> }) {
  return (
    <Stack gap={2} data-testid="outcome-analysis">
      <Group gap="xs">
        <Badge variant="light" color={analysis.outcome === 'booked' ? 'green' : 'blue'}>
          Outcome: {analysis.outcome}
        </Badge>
        <Text size="xs" c="dimmed">
          Score {analysis.score}/100
        </Text>
      </Group>
      <Text size="sm">{analysis.summary}</Text>
    </Stack>
  );
}
