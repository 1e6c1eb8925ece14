import { BarChart } from '@mantine/charts';
import { Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { type AnalyticsFilters, type OutcomesResult, outcomesQuery } from '../api/analytics.ts';
import { FigureSection } from './figure-section.tsx';
import { FigureToolbar } from './figure-toolbar.tsx';

const STATES = [
  { key: 'ended', label: 'Ended', color: 'green.6' },
  { key: 'needsHuman', label: 'Needs human', color: 'orange.6' },
  { key: 'errored', label: 'Errored', color: 'red.6' },
  { key: 'ignored', label: 'Ignored', color: 'gray.6' },
  { key: 'noResponse', label: 'No response', color: 'yellow.6' },
  { key: 'inProgress', label: 'In progress', color: 'indigo.6' },
] as const;
const ANALYSED_COLORS = ['teal.6', 'cyan.6', 'violet.6', 'pink.6', 'lime.6', 'blue.6', 'grape.6'];

/**
 * The columns (and chart series) of the figure: the analysed outcomes first (the outcome analysis's own words,
 * most frequent first), then the states of the conversations without an analysis; each with its value per day.
 */
export function outcomeColumns(data: OutcomesResult) {
  const analysed = data.analysedOutcomes.map((name, i) => ({
    key: `analysed:${name}`,
    label: name,
    color: ANALYSED_COLORS[i % ANALYSED_COLORS.length],
    of: (d: OutcomesResult['days'][number]) => d.analysed[name] ?? 0,
  }));
  const states = STATES.map((s) => ({ ...s, of: (d: OutcomesResult['days'][number]) => d[s.key] }));
  return [...analysed, ...states];
}

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
          csv={() => {
            const columns = outcomeColumns(data);
            return { header: ['day', ...columns.map((c) => c.label.toLowerCase())], rows: data.days.map((d) => [d.day, ...columns.map((c) => c.of(d))]) };
          }}
        />
      )}
    >
      {(data) => {
        if (data.days.length === 0) return <Text c="dimmed">No conversations in this range.</Text>;
        const columns = outcomeColumns(data);
        const chartData = data.days.map((d) => ({ day: d.day, ...Object.fromEntries(columns.map((c) => [c.key, c.of(d)])) }));
        return (
          <>
            {view === 'chart' && (
              <div role="img" aria-label="Outcomes chart: conversations per day by outcome (the table below has the figures)">
                <BarChart h={220} type="stacked" data={chartData} dataKey="day" withLegend series={columns.map((c) => ({ name: c.key, label: c.label, color: c.color }))} />
              </div>
            )}
            <Table aria-label="Outcomes per day">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Day</Table.Th>
                  {columns.map((c) => (
                    <Table.Th key={c.key} ta="right">
                      {c.label}
                    </Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.days.map((d) => (
                  <Table.Tr key={d.day}>
                    <Table.Td>{d.day}</Table.Td>
                    {columns.map((c) => (
                      <Table.Td key={c.key} ta="right">
                        {c.of(d)}
                      </Table.Td>
                    ))}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </>
        );
      }}
    </FigureSection>
  );
}
