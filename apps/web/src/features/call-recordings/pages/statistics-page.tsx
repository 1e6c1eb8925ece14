import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Alert, Anchor, Badge, Button, Card, Group, Loader, SimpleGrid, Stack, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { IconDownload, IconFileText, IconPlayerPlay, IconPlayerStop } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import type { CallRecording } from '@sales-agent/shared/schemas/call-recording';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { actionsColumn, DeleteAction, RecordTable } from '../../../components/record-table.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { confirmAction } from '../../../lib/confirm.tsx';
import { recordingDownloadUrl, recordingsQuery, transcriptionStatusQuery, useDeleteRecording, useGenerateTranscript } from '../api/recordings.ts';
import { RecordingPlayer } from '../components/recording-player.tsx';
import { computeStatistics, dateRangeQuery, formatDuration } from '../components/statistics.ts';

/** Spec §2.12 statistics: date filters, cards, top users, a per-day chart, the recordings table and a player. */
export default function StatisticsPage() {
  const [startDate, setStartDate] = useState('');
  const [endDate, setEndDate] = useState('');
  const range = useMemo(() => dateRangeQuery(startDate, endDate), [startDate, endDate]);
  const recordings = useQuery(recordingsQuery(range));
  const transcription = useQuery(transcriptionStatusQuery());
  /** The server's sentence when no transcription provider is configured (the button cannot work then). */
  const transcriptionOff = transcription.data && !transcription.data.available ? (transcription.data.reason ?? 'Transcription is not available.') : null;
  const [playingId, setPlayingId] = useState<number | null>(null);
  const generate = useGenerateTranscript();
  const remove = useDeleteRecording();
  /** The recording a write is under way for. */
  const busyId = generate.isPending ? generate.variables : remove.isPending ? remove.variables : null;
  const stats = useMemo(() => computeStatistics(recordings.data ?? []), [recordings.data]);
  const playing = recordings.data?.find((r) => r.id === playingId) ?? null;

  const onGenerate = (recording: CallRecording) =>
    generate.mutate(recording.id, {
      onSuccess: () => window.alert('Transcript generated successfully!'),
      onError: () => window.alert('Failed to generate transcript. Please try again.'),
    });

  const onDelete = async (recording: CallRecording) => {
    const confirmed = await confirmAction(
      `Delete the recording of ${new Date(recording.createdAt).toLocaleString()}? This action cannot be undone.`,
      { title: 'Delete recording', confirmLabel: 'Confirm' },
    );
    if (!confirmed) return;
    remove.mutate(recording.id, {
      onSuccess: () => setPlayingId((id) => (id === recording.id ? null : id)),
      onError: () => window.alert('Failed to delete the recording. Please try again.'),
    });
  };

  return (
    <Stack>
      <PageTitle>Call Recording Statistics</PageTitle>
      <Card withBorder padding="sm">
        <Group align="flex-end">
          <TextInput type="date" label="Start date" value={startDate} onChange={(e) => setStartDate(e.currentTarget.value)} max={endDate || undefined} />
          <TextInput type="date" label="End date" value={endDate} onChange={(e) => setEndDate(e.currentTarget.value)} min={startDate || undefined} />
          <Button
            variant="default"
            onClick={() => {
              setStartDate('');
              setEndDate('');
            }}
          >
            Reset
          </Button>
        </Group>
      </Card>

      {recordings.isPending ? (
        <Loader />
      ) : recordings.isError ? (
        <Alert color="red" role="alert">
          {errorMessage(recordings.error)}
        </Alert>
      ) : (
        <>
          <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
            <StatCard label="Total Calls" value={String(stats.totalCalls)} />
            <StatCard label="Total Duration" value={formatDuration(stats.totalDuration)} />
            <StatCard label="Average Duration" value={formatDuration(stats.averageDuration)} />
            <StatCard label="Calls This Month" value={String(stats.callsThisMonth)} />
          </SimpleGrid>

          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <PeriodCard title="Top Users by Recording Time" empty={stats.topUsers.length === 0}>
              {/* A ranking without actions: nothing to pin. */}
              <RecordTable
                aria-label="Top users"
                records={stats.topUsers}
                // As tall as its rows, not stretched to the chart card beside it.
                height="auto"
                idAccessor="email"
                pinLastColumn={false}
                striped={false}
                highlightOnHover={false}
                columns={[
                  { accessor: 'email', title: 'User' },
                  { accessor: 'calls', title: 'Calls', textAlign: 'right' },
                  { accessor: 'totalDuration', title: 'Total', textAlign: 'right', noWrap: true, render: (u) => formatDuration(u.totalDuration) },
                  { accessor: 'averageDuration', title: 'Average per call', textAlign: 'right', noWrap: true, render: (u) => formatDuration(u.averageDuration) },
                ]}
              />
            </PeriodCard>
            <PeriodCard title="Calls and minutes per day" empty={stats.perDay.length === 0}>
              <BarChart
                h={220}
                data={stats.perDay}
                dataKey="day"
                withLegend
                series={[
                  { name: 'calls', label: 'Calls', color: 'indigo.6' },
                  { name: 'minutes', label: 'Minutes', color: 'teal.6' },
                ]}
                aria-label="Calls and minutes per day"
              />
            </PeriodCard>
          </SimpleGrid>

          <Card withBorder padding="sm">
            <Title order={4} mb="sm">
              Recordings
            </Title>
            {transcriptionOff && (
              <Text size="sm" c="dimmed" mb="sm" data-testid="transcription-off">
                Generate Transcript is unavailable: {transcriptionOff}
              </Text>
            )}
            {recordings.data.length === 0 ? (
              <Text c="dimmed">
                No recordings yet.{' '}
                <Anchor component={Link} to={paths.callRecordingsUpload}>
                  Upload some
                </Anchor>
                .
              </Text>
            ) : (
              <RecordTable
                aria-label="Recordings"
                records={recordings.data}
                customRowAttributes={(r) => ({ 'data-testid': `recording-row-${r.id}` })}
                columns={[
                  { accessor: 'createdAt', title: 'Date', render: (r) => new Date(r.createdAt).toLocaleString() },
                  { accessor: 'user.email', title: 'User' },
                  { accessor: 'duration', title: 'Duration', noWrap: true, render: (r) => formatDuration(r.duration) },
                  {
                    accessor: 'transcript',
                    title: 'Transcript',
                    render: (r) => (r.transcript !== null ? <Badge color="green">Available</Badge> : <Badge color="gray">None</Badge>),
                  },
                  actionsColumn((r: CallRecording) => (
                    <>
                      <Button
                        size="xs"
                        variant="light"
                        leftSection={playingId === r.id ? <IconPlayerStop size={14} aria-hidden /> : <IconPlayerPlay size={14} aria-hidden />}
                        onClick={() => setPlayingId(playingId === r.id ? null : r.id)}
                      >
                        {playingId === r.id ? 'Hide Player' : 'Play'}
                      </Button>
                      <Button size="xs" variant="default" leftSection={<IconDownload size={14} aria-hidden />} component="a" href={recordingDownloadUrl(r.id)}>
                        Download
                      </Button>
                      {r.transcript !== null ? (
                        <Button
                          size="xs"
                          variant="default"
                          leftSection={<IconFileText size={14} aria-hidden />}
                          component={Link}
                          to={paths.callRecordingTranscript(r.id)}
                        >
                          View Transcript
                        </Button>
                      ) : (
                        <Tooltip label={transcriptionOff} disabled={!transcriptionOff} multiline w={280} events={{ hover: true, focus: true, touch: true }}>
                          {/* A span keeps the tooltip working on the disabled button. */}
                          <span>
                            <Button
                              size="xs"
                              variant="default"
                              leftSection={<IconFileText size={14} aria-hidden />}
                              loading={busyId === r.id}
                              disabled={Boolean(transcriptionOff)}
                              onClick={() => onGenerate(r)}
                            >
                              Generate Transcript
                            </Button>
                          </span>
                        </Tooltip>
                      )}
                      <DeleteAction disabled={busyId === r.id} onClick={() => onDelete(r)} />
                    </>
                  ), 170),
                ]}
              />
            )}
          </Card>

          {playing && <RecordingPlayer recording={playing} autoPlay />}
        </>
      )}
    </Stack>
  );
}

/** A card of the period's figures, or the sentence saying the period has no recordings. */
function PeriodCard({ title, empty, children }: { title: string; empty: boolean; children: React.ReactNode }) {
  return (
    <Card withBorder>
      <Title order={4} mb="sm">
        {title}
      </Title>
      {empty ? <Text c="dimmed">No recordings in this period.</Text> : children}
    </Card>
  );
}

function StatCard({ label, value }: { label: string; value: string }) {
  return (
    <Card withBorder data-testid={`stat-${label.toLowerCase().replaceAll(' ', '-')}`}>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="xl" fw={700}>
        {value}
      </Text>
    </Card>
  );
}
