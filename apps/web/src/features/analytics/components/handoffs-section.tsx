import { Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { type AnalyticsFilters, type FollowUpsResult, type HandoffsResult, followUpsQuery, handoffsQuery } from '../api/analytics.ts';
import { FigureSection } from './figure-section.tsx';
import { FigureTable, RowsTable } from './figure-table.tsx';
import { FigureToolbar } from './figure-toolbar.tsx';

/** The reason codes (docs/analytics.md "Hand-offs") in words. */
export const HANDOFF_REASONS: Record<string, string> = {
  ALL: 'All hand-offs',
  HUMAN_REQUESTED: 'The AI asked for a person',
  NOT_IN_KNOWLEDGE: 'Not in the knowledge base',
  GUARD_FAILED: 'A reply failed the check',
  NO_LLM: 'No AI model configured',
  TAKEN_OVER: 'A person took over',
};

const share = (v: number | null) => (v === null ? '–' : `${Math.round(v * 1000) / 10} %`);
const secs = (v: number | null) => (v === null ? '–' : `${v} s`);

/** One row per reason, then all of them: as the table and the CSV show them. */
export function handoffRows(data: HandoffsResult): (string | number)[][] {
  return [...data.byReason, data.total].map((r) => [
    HANDOFF_REASONS[r.reason] ?? r.reason,
    r.handoffs,
    r.answered,
    secs(r.answerSeconds.p50),
    secs(r.answerSeconds.p90),
  ]);
}
const HANDOFF_HEADER = ['Reason', 'Hand-offs', 'Answered', 'Until a person answered p50', 'p90'];

/** Issue 26: how often conversations went to a person, why, and how long until a person answered. */
export function HandoffsSection({ filters }: { filters: AnalyticsFilters }) {
  const handoffs = useQuery(handoffsQuery(filters));
  return (
    <FigureSection
      title="Hand-offs"
      query={handoffs}
      toolbar={(data) => <FigureToolbar name="Hand-offs" csv={() => ({ header: HANDOFF_HEADER, rows: handoffRows(data) })} />}
    >
      {(data) => (
        <>
          <Text size="sm">
            {data.handedOff} of {data.conversations} conversations handed to a person ({share(data.handedOffShare)})
          </Text>
          <RowsTable label="Hand-offs by reason" header={HANDOFF_HEADER} rows={handoffRows(data)} />
        </>
      )}
    </FigureSection>
  );
}

/** The follow-ups by rank (1st, 2nd …), then all of them. */
export function followUpRows(data: FollowUpsResult): (string | number)[][] {
  return [...data.byNumber, data.total].map((r) => [r.number === null ? 'All follow-ups' : `Follow-up ${r.number}`, r.sent, r.broughtBack, share(r.broughtBackShare)]);
}
const FOLLOW_UP_HEADER = ['Follow-up', 'Sent', 'Brought the prospect back', 'Share'];

/** Issue 26: follow-ups sent, and the share after which the prospect wrote again. */
export function FollowUpsSection({ filters }: { filters: AnalyticsFilters }) {
  const followUps = useQuery(followUpsQuery(filters));
  return (
    <FigureSection
      title="Follow-ups"
      query={followUps}
      toolbar={(data) => <FigureToolbar name="Follow-ups" csv={() => ({ header: FOLLOW_UP_HEADER, rows: followUpRows(data) })} />}
    >
      {(data) => (
        <>
          <FigureTable label="Follow-ups summary" rows={[['Conversations followed up', String(data.followedUp)]]} />
          <RowsTable label="Follow-ups by rank" header={FOLLOW_UP_HEADER} rows={followUpRows(data)} />
        </>
      )}
    </FigureSection>
  );
}
