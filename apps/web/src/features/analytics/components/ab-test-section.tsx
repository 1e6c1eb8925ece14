import { BarChart } from '@mantine/charts';
import { Alert, Badge, Button, Group, Loader, NativeSelect, NumberInput, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth.ts';
import { versionsQuery } from '../../agent-tests/api/agent-tests.ts';
import { type AbComparison, type AnalyticsFilters, abComparisonQuery, abTestsQuery, useStartAbTest, useStopAbTest } from '../api/analytics.ts';
import { RowsTable } from './figure-table.tsx';
import { FigureToolbar } from './figure-toolbar.tsx';

const pct = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${(v * 100).toFixed(1)} %`);

/** The arms as table rows (and CSV): one row per arm. */
export function abRows(data: AbComparison) {
  return data.arms.map((a) => ({
    arm: `${a.arm} · version ${a.version}`,
    started: a.funnel.started,
    ended: a.funnel.ended,
    booked: a.funnel.booked,
    converted: a.converted,
    rate: a.conversionRate,
    interval: a.interval ? `${pct(a.interval.low)} – ${pct(a.interval.high)}` : '–',
  }));
}

/** Issue 26 item 2: the A/B test of the chosen type — start/stop (ADMIN) and the arms compared. */
export function AbTestSection({ filters }: { filters: AnalyticsFilters }) {
  const auth = useAuth();
  const comparison = useQuery(abComparisonQuery(filters));
  const [view, setView] = useState('chart');
  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Title order={2} size="h4">
          A/B test
        </Title>
        {comparison.data?.test && (
          <Badge color={comparison.data.test.running ? 'green' : 'gray'}>
            {comparison.data.test.running ? 'Running' : `Stopped${comparison.data.test.winner ? `, winner ${comparison.data.test.winner}` : ''}`}
          </Badge>
        )}
      </Group>
      {auth.role === 'ADMIN' && <AbTestControls typeId={filters.conversationType} />}
      {comparison.isPending ? (
        <Loader size="sm" />
      ) : comparison.isError ? (
        <Alert color="red" role="alert">{errorMessage(comparison.error)}</Alert>
      ) : comparison.data.test === null ? (
        <Text c="dimmed">{comparison.data.verdict}</Text>
      ) : (
        <Stack gap="xs">
          <Alert color={comparison.data.comparison?.significant ? 'green' : 'yellow'} title={comparison.data.comparison?.significant ? 'Significant difference' : 'Not yet significant'}>
            {comparison.data.verdict}
          </Alert>
          <Group justify="flex-end">
            <FigureToolbar
              name="A/B"
              view={view}
              onView={setView}
              csv={() => ({
                header: ['arm', 'started', 'ended', 'booked', 'converted', 'conversion', '95% interval'],
                rows: abRows(comparison.data).map((r) => [r.arm, r.started, r.ended, r.booked, r.converted, r.rate === null ? null : Math.round(r.rate * 1000) / 10, r.interval]),
              })}
            />
          </Group>
          {view === 'chart' && (
            <div role="img" aria-label="A/B chart: conversion per arm (the table below has the figures)">
              <BarChart
                h={180}
                data={abRows(comparison.data).map((r) => ({ arm: r.arm, conversion: r.rate === null ? 0 : Math.round(r.rate * 1000) / 10 }))}
                dataKey="arm"
                unit=" %"
                series={[{ name: 'conversion', label: 'Conversion (%)', color: 'teal.6' }]}
              />
            </div>
          )}
          <RowsTable
            label="A/B arms"
            total={false}
            header={['Arm', 'Started', 'Ended', 'Booked', 'Converted', 'Conversion', '95 % interval']}
            rows={abRows(comparison.data).map((r) => [r.arm, r.started, r.ended, r.booked, r.converted, pct(r.rate), r.interval])}
          />
          {comparison.data.comparison && (
            <Text size="sm" c="dimmed">
              Difference B − A: {((comparison.data.comparison.difference) * 100).toFixed(1)} points (95 % interval{' '}
              {(comparison.data.comparison.differenceInterval.low * 100).toFixed(1)} to {(comparison.data.comparison.differenceInterval.high * 100).toFixed(1)}), p ={' '}
              {comparison.data.comparison.pValue.toFixed(3)}. Converted: ended or booked a meeting.
            </Text>
          )}
        </Stack>
      )}
    </Stack>
  );
}

function AbTestControls({ typeId }: { typeId: string }) {
  const tests = useQuery(abTestsQuery(typeId));
  const versions = useQuery(versionsQuery(typeId));
  const start = useStartAbTest(typeId);
  const stop = useStopAbTest(typeId);
  const [versionA, setVersionA] = useState('');
  const [versionB, setVersionB] = useState('');
  const [weightB, setWeightB] = useState<number | string>(50);
  const [winner, setWinner] = useState<'A' | 'B'>('B');
  if (tests.isPending || versions.isPending) return <Loader size="sm" />;
  if (tests.isError) return <Alert color="red" role="alert">{errorMessage(tests.error)}</Alert>;
  const running = tests.data.running;
  if (running) {
    return (
      <Group align="flex-end">
        <Text size="sm">
          Splitting new conversations: version {running.versionA} (A) {Math.round((1 - running.weightB) * 100)} % · version {running.versionB} (B){' '}
          {Math.round(running.weightB * 100)} %
        </Text>
        <NativeSelect
          label="Winner"
          value={winner}
          onChange={(e) => setWinner(e.currentTarget.value as 'A' | 'B')}
          data={[
            { value: 'A', label: `A · version ${running.versionA}` },
            { value: 'B', label: `B · version ${running.versionB}` },
          ]}
        />
        <Button color="red" variant="light" loading={stop.isPending} onClick={() => stop.mutate(winner)}>
          Stop test
        </Button>
      </Group>
    );
  }
  const published = (versions.data?.versions ?? []).map((v) => ({ value: String(v.version), label: `Version ${v.version}${v.note ? ` · ${v.note}` : ''}` }));
  if (published.length < 2) return <Text size="sm" c="dimmed">Publish two versions of this playbook to start an A/B test.</Text>;
  return (
    <Group align="flex-end">
      <NativeSelect label="Version A" value={versionA} onChange={(e) => setVersionA(e.currentTarget.value)} data={[{ value: '', label: 'Choose…' }, ...published]} />
      <NativeSelect label="Version B" value={versionB} onChange={(e) => setVersionB(e.currentTarget.value)} data={[{ value: '', label: 'Choose…' }, ...published]} />
      <NumberInput label="Share to B (%)" min={0} max={100} w={130} value={weightB} onChange={setWeightB} />
      <Button
        loading={start.isPending}
        disabled={!versionA || !versionB || versionA === versionB}
        onClick={() => start.mutate({ versionA: Number(versionA), versionB: Number(versionB), weightB: Number(weightB) / 100 })}
      >
        Start A/B test
      </Button>
    </Group>
  );
}
