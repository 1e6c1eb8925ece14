import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { Alert, Anchor, Badge, Button, Card, Group, Loader, SimpleGrid, Stack, Table, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { CallRecording } from '@sales-agent/shared/schemas/call-recording';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { confirmAction } from '../../../lib/confirm.tsx';
import { toastError, toastSuccess } from '../../../lib/toast.ts';
import { deleteRecording, generateTranscript, recordingDownloadUrl, recordingsQuery, transcriptionStatusQuery } from '../api/recordings.ts';
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
  const [busyId, setBusyId] = useState<number | null>(null);
  const client = useQueryClient();
  const stats = useMemo(() => computeStatistics(recordings.data ?? []), [recordings.data]);
  const playing = recordings.data?.find((r) => r.id === playingId) ?? null;

  const refresh = () => client.invalidateQueries({ queryKey: ['call-recordings'] });

  const onGenerate = async (recording: CallRecording) => {
    setBusyId(recording.id);
    try {
      await generateTranscript(recording.id);
      await refresh();
      window.alert('Transcript generated successfully!');
    } catch (err) {
      window.alert('Failed to generate transcript. Please try again.');
      // The reason (e.g. no speech-to-text provider configured) as a notification, spec §8.1.
      toastError(err);
    } finally {
      setBusyId(null);
    }
  };

  const onDelete = async (recording: CallRecording) => {
    const confirmed = await confirmAction(
      `Delete the recording of ${new Date(recording.createdAt).toLocaleString()}? This action cannot be undone.`,
      { title: 'Delete recording', confirmLabel: 'Confirm' },
    );
    if (!confirmed) return;
    setBusyId(recording.id);
    try {
      await deleteRecording(recording.id);
      if (playingId === recording.id) setPlayingId(null);
      await refresh();
      toastSuccess('Recording deleted.');
    } catch {
      window.alert('Failed to delete the recording. Please try again.');
    } finally {
      setBusyId(null);
    }
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
            <Card withBorder>
              <Title order={4} mb="sm">
                Top Users by Recording Time
              </Title>
              {stats.topUsers.length === 0 ? (
                <Text c="dimmed">No recordings in this period.</Text>
              ) : (
                <Table.ScrollContainer minWidth={480}>
                  <Table aria-label="Top users">
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>User</Table.Th>
                        <Table.Th>Calls</Table.Th>
                        <Table.Th>Total</Table.Th>
                        <Table.Th>Average per call</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {stats.topUsers.map((u) => (
                        <Table.Tr key={u.email}>
                          <Table.Td>{u.email}</Table.Td>
                          <Table.Td>{u.calls}</Table.Td>
                          <Table.Td>{formatDuration(u.totalDuration)}</Table.Td>
                          <Table.Td>{formatDuration(u.averageDuration)}</Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </Table.ScrollContainer>
              )}
            </Card>
            <Card withBorder>
              <Title order={4} mb="sm">
                Calls and minutes per day
              </Title>
              {stats.perDay.length === 0 ? (
                <Text c="dimmed">No recordings in this period.</Text>
              ) : (
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
              )}
            </Card>
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
              <Table.ScrollContainer minWidth={760}>
                <Table aria-label="Recordings" striped highlightOnHover>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Date</Table.Th>
                      <Table.Th>User</Table.Th>
                      <Table.Th>Duration</Table.Th>
                      <Table.Th>Transcript</Table.Th>
                      <Table.Th>Actions</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {recordings.data.map((r) => (
                      <Table.Tr key={r.id} data-testid={`recording-row-${r.id}`}>
                        <Table.Td>{new Date(r.createdAt).toLocaleString()}</Table.Td>
                        <Table.Td>{r.user.email}</Table.Td>
                        <Table.Td>{formatDuration(r.duration)}</Table.Td>
                        <Table.Td>
                          {r.transcript !== null ? <Badge color="green">Available</Badge> : <Badge color="gray">None</Badge>}
                        </Table.Td>
                        <Table.Td>
                          <Group gap={6} wrap="nowrap">
                            <Button size="xs" variant="light" onClick={() => setPlayingId(playingId === r.id ? null : r.id)}>
                              {playingId === r.id ? 'Hide Player' : 'Play'}
                            </Button>
                            <Button size="xs" variant="default" component="a" href={recordingDownloadUrl(r.id)}>
                              Download
                            </Button>
                            {r.transcript !== null ? (
                              <Button size="xs" variant="default" component={Link} to={paths.callRecordingTranscript(r.id)}>
                                View Transcript
                              </Button>
                            ) : (
                              <Tooltip label={transcriptionOff} disabled={!transcriptionOff} multiline w={280} events={{ hover: true, focus: true, touch: true }}>
                                {/* A span keeps the tooltip working on the disabled button. */}
                                <span>
                                  <Button
                                    size="xs"
                                    variant="default"
                                    loading={busyId === r.id}
                                    disabled={Boolean(transcriptionOff)}
                                    onClick={() => onGenerate(r)}
                                  >
                                    Generate Transcript
                                  </Button>
                                </span>
                              </Tooltip>
                            )}
                            <Button size="xs" color="red" variant="light" disabled={busyId === r.id} onClick={() => onDelete(r)}>
                              Delete
                            </Button>
                          </Group>
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            )}
          </Card>

          {playing && <RecordingPlayer recording={playing} />}
        </>
      )}
    </Stack>
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
