import { BarChart } from '@mantine/charts';
import { Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { type AnalyticsFilters, outcomesQuery } from '../api/analytics.ts';
import { FigureSection } from './figure-section.tsx';
import { FigureToolbar } from './figure-toolbar.tsx';

const KINDS = [
  { key: 'ended', label: 'Ended', color: 'green.6' },
  { key: 'needsHuman', label: 'Needs human', color: 'orange.6' },
  { key: 'errored', label: 'Errored', color: 'red.6' },
  { key: 'ignored', label: 'Ignored', color: 'gray.6' },
  { key: 'noResponse', label: 'No response', color: 'yellow.6' },
  { key: 'inProgress', label: 'In progress', color: 'indigo.6' },
] as const;

/** Issue 26: the outcomes of the conversations started each day. */
export function OutcomesSection({ filters }: { filters: AnalyticsFilters }) {
  const outcomes = useQuery(outcomesQuery(filters));
  const [view, setView] = useState('chart');
  return (
    <FigureSection
      title="Outcomes over time"
      query={outcomes}
      toolbar={(data) => (
        <FigureToolbar
          name="Outcomes"
          view={view}
          onView={setView}
          csv={() => ({ header: ['day', ...KINDS.map((k) => k.label.toLowerCase())], rows: data.days.map((d) => [d.day, ...KINDS.map((k) => d[k.key])]) })}
        />
      )}
    >
      {(data) =>
        data.days.length === 0 ? (
          <Text c="dimmed">No conversations in this range.</Text>
        ) : (
          <>
            {view === 'chart' && (
              <div role="img" aria-label="Outcomes chart: conversations per day by outcome (the table below has the figures)">
                <BarChart h={220} type="stacked" data={data.days} dataKey="day" withLegend series={KINDS.map((k) => ({ name: k.key, label: k.label, color: k.color }))} />
              </div>
            )}
            <Table aria-label="Outcomes per day">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Day</Table.Th>
                  {KINDS.map((k) => (
                    <Table.Th key={k.key} ta="right">
                      {k.label}
                    </Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.days.map((d) => (
                  <Table.Tr key={d.day}>
                    <Table.Td>{d.day}</Table.Td>
                    {KINDS.map((k) => (
                      <Table.Td key={k.key} ta="right">
                        {d[k.key]}
                      </Table.Td>
                    ))}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </>
        )
      }
    </FigureSection>
  );
}
