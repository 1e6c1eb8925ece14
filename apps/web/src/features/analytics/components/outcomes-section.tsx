import { BarChart } from '@mantine/charts';
import { Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { type AnalyticsFilters, type OutcomesResult, outcomesQuery } from '../api/analytics.ts';
import { FigureSection } from './figure-section.tsx';
import { RowsTable } from './figure-table.tsx';
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
  return (
    <FigureSection
      title="Outcomes over time"
      query={outcomes}
      toolbar={(data, view) => (
        <FigureToolbar
          name="Outcomes"
          {...view}
          csv={() => {
            const columns = outcomeColumns(data);
            return { header: ['day', ...columns.map((c) => c.label.toLowerCase())], rows: data.days.map((d) => [d.day, ...columns.map((c) => c.of(d))]) };
          }}
        />
      )}
      chart={(data) => {
        if (data.days.length === 0) return null;
        const columns = outcomeColumns(data);
        const chartData = data.days.map((d) => ({ day: d.day, ...Object.fromEntries(columns.map((c) => [c.key, c.of(d)])) }));
        return (
          <div role="img" aria-label="Outcomes chart: conversations per day by outcome (the table below has the figures)">
            <BarChart h={220} type="stacked" data={chartData} dataKey="day" withLegend series={columns.map((c) => ({ name: c.key, label: c.label, color: c.color }))} />
          </div>
        );
      }}
    >
      {(data) => {
        if (data.days.length === 0) return <Text c="dimmed">No conversations in this range.</Text>;
        const columns = outcomeColumns(data);
        return (
          <RowsTable
            label="Outcomes per day"
            total={false}
            header={['Day', ...columns.map((c) => c.label)]}
            rows={data.days.map((d) => [d.day, ...columns.map((c) => c.of(d))])}
          />
        );
      }}
    </FigureSection>
  );
}
