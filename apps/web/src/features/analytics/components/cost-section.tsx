import { BarChart } from '@mantine/charts';
import { useQuery } from '@tanstack/react-query';
import { type AnalyticsFilters, type CostResult, costQuery } from '../api/analytics.ts';
import { FigureSection } from './figure-section.tsx';
import { RowsTable } from './figure-table.tsx';
import { FigureToolbar } from './figure-toolbar.tsx';

const dollars = (v: number | null) => (v === null ? '–' : `$${v.toFixed(4)}`);
const HEADER = ['channel', 'conversations', 'booked', 'LLM USD', 'voice USD', 'telephony USD', 'total USD', 'per conversation USD', 'per booked meeting USD'];
const TABLE_HEADER = ['Channel', 'Conversations', 'Booked', 'LLM', 'Voice', 'Telephony', 'Total', 'Per conversation', 'Per booked meeting'];

/** The channel rows then the total, as the table and the CSV show them. */
export function costRows(data: CostResult) {
  return [...data.byChannel, { ...data.total, channel: 'All channels' }];
}

/** Issue 26: LLM, voice and telephony cost per conversation, per booked meeting and per channel. */
export function CostSection({ filters }: { filters: AnalyticsFilters }) {
  const cost = useQuery(costQuery(filters));
  return (
    <FigureSection
      title="Cost"
      query={cost}
      toolbar={(data, view) => (
        <FigureToolbar
          name="Cost"
          {...view}
          csv={() => ({
            header: HEADER,
            rows: costRows(data).map((r) => [r.channel, r.conversations, r.booked, r.llmUsd, r.voiceUsd, r.telephonyUsd, r.totalUsd, r.perConversationUsd, r.perBookedUsd]),
          })}
        />
      )}
      chart={(data) => (
        <div role="img" aria-label="Cost chart: dollars per channel by kind (the table below has the figures)">
          <BarChart
            h={200}
            type="stacked"
            data={data.byChannel}
            dataKey="channel"
            unit=" $"
            series={[
              { name: 'llmUsd', label: 'LLM', color: 'indigo.6' },
              { name: 'voiceUsd', label: 'Voice', color: 'teal.6' },
              { name: 'telephonyUsd', label: 'Telephony', color: 'orange.6' },
            ]}
          />
        </div>
      )}
    >
      {(data) => (
        <RowsTable
          label="Cost by channel"
          header={TABLE_HEADER}
          rows={costRows(data).map((r) => [
            r.channel,
            r.conversations,
            r.booked,
            ...[r.llmUsd, r.voiceUsd, r.telephonyUsd, r.totalUsd, r.perConversationUsd, r.perBookedUsd].map(dollars),
          ])}
        />
      )}
    </FigureSection>
  );
}
