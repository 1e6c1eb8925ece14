import { Alert, Anchor, Button, Card, Group, Loader, SimpleGrid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { paths } from '../../../config/paths.ts';
import { toastError, toastSuccess } from '../../../lib/toast.ts';
import { recordingDownloadUrl, transcriptQuery } from '../api/recordings.ts';
import { transcriptLines } from '../components/recording-player.tsx';
import { formatDuration } from '../components/statistics.ts';

const LOAD_FAILED = 'Failed to load transcript. It may not exist or you may not have permission to view it.';

/** Spec §2.12 transcript page: the call's details, Download Recording, Copy to Clipboard and the lines. */
export default function TranscriptPage() {
  const { id = '' } = useParams();
  const transcript = useQuery({ ...transcriptQuery(id), enabled: /^\d+$/.test(id) });
  const back = (
    <Anchor component={Link} to={paths.callRecordingsStatistics}>
      ← Back to statistics
    </Anchor>
  );

  if (!/^\d+$/.test(id) || transcript.isError) {
    return (
      <Stack>
        <PageTitle>Transcript</PageTitle>
        <Alert color="red" role="alert" data-testid="transcript-error">
          {LOAD_FAILED}
        </Alert>
        {back}
      </Stack>
    );
  }
  if (transcript.isPending) return <Loader />;

  const { callInfo } = transcript.data;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(transcript.data.transcript);
      toastSuccess('Transcript copied to clipboard');
    } catch {
      toastError('Could not copy to the clipboard. Select the text and copy it instead.');
    }
  };

  return (
    <Stack>
      {back}
      <PageTitle>Transcript</PageTitle>
      <Card withBorder>
        <SimpleGrid cols={{ base: 2, sm: 4 }}>
          <Info label="Date" value={new Date(callInfo.date).toLocaleString()} />
          <Info label="User" value={callInfo.user} />
          <Info label="Duration" value={formatDuration(callInfo.duration)} />
          <Info label="File type" value={callInfo.fileExtension.toUpperCase()} />
        </SimpleGrid>
        <Group mt="md">
          <Button component="a" href={recordingDownloadUrl(id)} variant="light">
            Download Recording
          </Button>
          <Button variant="default" onClick={copy}>
            Copy to Clipboard
          </Button>
        </Group>
      </Card>
      <Card withBorder>
        <Stack gap={6} data-testid="transcript-lines">
          {transcriptLines(transcript.data.transcript).length === 0 ? (
            <Text c="dimmed">The transcript is empty (no speech was recognised).</Text>
          ) : (
            transcriptLines(transcript.data.transcript).map((line, i) => <Text key={i}>{line}</Text>)
          )}
        </Stack>
      </Card>
    </Stack>
  );
}

function Info({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={600} style={{ wordBreak: 'break-all' }}>
        {value}
      </Text>
    </div>
  );
}
