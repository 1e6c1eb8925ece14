import { BarChart } from '@mantine/charts';
import { Table } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { type AnalyticsFilters, type CostResult, costQuery } from '../api/analytics.ts';
import { FigureSection } from './figure-section.tsx';
import { FigureToolbar } from './figure-toolbar.tsx';

const dollars = (v: number | null) => (v === null ? '–' : `$${v.toFixed(4)}`);
const HEADER = ['channel', 'conversations', 'booked', 'LLM USD', 'voice USD', 'telephony USD', 'total USD', 'per conversation USD', 'per booked meeting USD'];

/** The channel rows then the total, as the table and the CSV show them. */
export function costRows(data: CostResult) {
  return [...data.byChannel, { ...data.total, channel: 'All channels' }];
}

/** Issue 26: LLM, voice and telephony cost per conversation, per booked meeting and per channel. */
export function CostSection({ filters }: { filters: AnalyticsFilters }) {
  const cost = useQuery(costQuery(filters));
  const [view, setView] = useState('chart');
  return (
    <FigureSection
      title="Cost"
      query={cost}
      toolbar={(data) => (
        <FigureToolbar
          name="Cost"
          view={view}
          onView={setView}
          csv={() => ({
            header: HEADER,
            rows: costRows(data).map((r) => [r.channel, r.conversations, r.booked, r.llmUsd, r.voiceUsd, r.telephonyUsd, r.totalUsd, r.perConversationUsd, r.perBookedUsd]),
          })}
        />
      )}
    >
      {(data) => (
        <>
          {view === 'chart' && (
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
          <Table aria-label="Cost by channel">
            <Table.Thead>
              <Table.Tr>
                {['Channel', 'Conversations', 'Booked', 'LLM', 'Voice', 'Telephony', 'Total', 'Per conversation', 'Per booked meeting'].map((h, i) => (
                  <Table.Th key={h} ta={i === 0 ? undefined : 'right'}>
                    {h}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {costRows(data).map((r) => (
                <Table.Tr key={r.channel} fw={r.channel === 'All channels' ? 600 : undefined}>
                  <Table.Td>{r.channel}</Table.Td>
                  <Table.Td ta="right">{r.conversations}</Table.Td>
                  <Table.Td ta="right">{r.booked}</Table.Td>
                  <Table.Td ta="right">{dollars(r.llmUsd)}</Table.Td>
                  <Table.Td ta="right">{dollars(r.voiceUsd)}</Table.Td>
                  <Table.Td ta="right">{dollars(r.telephonyUsd)}</Table.Td>
                  <Table.Td ta="right">{dollars(r.totalUsd)}</Table.Td>
                  <Table.Td ta="right">{dollars(r.perConversationUsd)}</Table.Td>
                  <Table.Td ta="right">{dollars(r.perBookedUsd)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </>
      )}
    </FigureSection>
  );
}
