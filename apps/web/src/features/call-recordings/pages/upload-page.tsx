import '@mantine/dropzone/styles.css';
import { ActionIcon, Alert, Anchor, Button, Card, Group, Progress, Stack, Text } from '@mantine/core';
import { Dropzone } from '@mantine/dropzone';
import { IconAlertTriangle, IconCheck, IconX } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { DISPLAYED_FORMATS } from '@sales-agent/shared/schemas/call-recording';
import { useState } from 'react';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { RecordTable } from '../../../components/record-table.tsx';
import { paths } from '../../../config/paths.ts';
import { toastSuccess } from '../../../lib/toast.ts';
import { recordingKeys } from '../api/recordings.ts';
import { type FileOutcome, UPLOAD_FAILED_MESSAGE, uploadOutcomes, uploadRecordings } from '../api/upload.ts';
import { formatBytes, partitionMediaFiles, REJECTED_FILES_MESSAGE } from '../components/statistics.ts';

const NO_FILES_MESSAGE = 'Please select at least one file to upload';

/**
 * Spec §2.12 upload: drag-and-drop or multi-select, chosen files with sizes and remove, a real progress bar.
 * When the server refuses some files of an upload (issue 24), the good ones are stored and every row says
 * what became of its file: Uploaded, or Not uploaded with the reason.
 */
export default function UploadPage() {
  const client = useQueryClient();
  const [files, setFiles] = useState<File[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [uploading, setUploading] = useState(false);
  const [uploadedCount, setUploadedCount] = useState<number | null>(null);
  // Outcomes of the last upload, kept only while it refused some file; a row without one is still to send.
  const [outcomes, setOutcomes] = useState<Map<File, FileOutcome>>(() => new Map());

  const addFiles = (incoming: File[]) => {
    const { kept, rejected } = partitionMediaFiles(incoming);
    setError(rejected.length > 0 ? REJECTED_FILES_MESSAGE : null);
    setUploadedCount(null);
    setProgress(null);
    // A new selection starts afresh: the rows of the last upload's outcome go.
    setOutcomes(new Map());
    setFiles((current) => {
      const open = current.filter((f) => !outcomes.has(f));
      return [...open, ...kept.filter((f) => !open.some((c) => sameFile(c, f)))];
    });
  };

  const removeFile = (index: number) => setFiles((current) => current.filter((_, i) => i !== index));

  const upload = async () => {
    const pending = files.filter((f) => !outcomes.has(f));
    if (pending.length === 0) {
      setError(NO_FILES_MESSAGE);
      return;
    }
    setError(null);
    setUploading(true);
    setUploadedCount(null);
    setProgress(0);
    try {
      const result = await uploadRecordings(pending, setProgress);
      setUploadedCount(result.recordings.length);
      const refused = result.refused?.length ?? 0;
      if (refused > 0) {
        const sent = uploadOutcomes(pending, result);
        setOutcomes((current) => new Map([...current, ...sent]));
        setError(refused === 1 ? '1 file was not uploaded. The reason is shown next to it.' : `${refused} files were not uploaded. The reason is shown next to each.`);
      } else {
        setFiles([]);
        setOutcomes(new Map());
        toastSuccess(result.message);
      }
      await client.invalidateQueries({ queryKey: recordingKeys.all() });
    } catch (err) {
      setProgress(null);
      setError(err instanceof Error && err.message ? err.message : UPLOAD_FAILED_MESSAGE);
    } finally {
      setUploading(false);
    }
  };

  const totalBytes = files.reduce((sum, f) => sum + f.size, 0);

  return (
    <Stack maw={760}>
      <PageTitle>Upload Recordings</PageTitle>
      <Dropzone
        onDrop={addFiles}
        onReject={(rejections) => addFiles(rejections.map((r) => r.file))}
        multiple
        disabled={uploading}
        aria-label="Drop recordings here or click to select files"
      >
        <Stack align="center" gap={4} py="xl" style={{ pointerEvents: 'none' }}>
          <Text size="xl" fw={600}>
            Drag recordings here or click to select files
          </Text>
          <Text size="sm" c="dimmed">
            Select several files at once if you like.
          </Text>
          <Text size="sm" c="dimmed" data-testid="supported-formats">
            Supported formats: {DISPLAYED_FORMATS.join(', ')}
          </Text>
        </Stack>
      </Dropzone>

      {error && (
        <Alert color="red" role="alert" title="Upload" data-testid="upload-error">
          {error}
        </Alert>
      )}

      {files.length > 0 && (
        <Card withBorder padding="sm">
          <RecordTable
            aria-label="Selected files"
            records={files}
            idAccessor={fileKey}
            striped={false}
            columns={[
              { accessor: 'name', title: 'File', cellsStyle: () => ({ overflowWrap: 'anywhere' }) },
              { accessor: 'size', title: 'Size', noWrap: true, render: (file) => formatBytes(file.size) },
              ...(outcomes.size > 0
                ? [{ accessor: 'status', title: 'Status', render: (file: File) => <FileStatus outcome={outcomes.get(file)} /> }]
                : []),
              {
                accessor: 'remove',
                title: 'Remove',
                textAlign: 'right',
                render: (file, index) => (
                  <ActionIcon variant="subtle" color="red" aria-label={`Remove ${file.name}`} onClick={() => removeFile(index)} disabled={uploading}>
                    <IconX size={16} aria-hidden />
                  </ActionIcon>
                ),
              },
            ]}
          />
          <Text size="sm" c="dimmed" mt="xs">
            {files.length} file{files.length === 1 ? '' : 's'}, {formatBytes(totalBytes)} in total
          </Text>
        </Card>
      )}

      {progress !== null && (
        <Stack gap={4}>
          <Progress value={progress} size="lg" striped={uploading} animated={uploading} aria-label="Upload progress" />
          <Text size="sm" data-testid="upload-progress-text">
            {uploading ? `Uploading… ${progress}%` : `Upload complete: ${progress}%`}
          </Text>
        </Stack>
      )}

      {uploadedCount !== null && (
        <Alert color="green" title="Done">
          {uploadedCount === 1 ? '1 recording was uploaded.' : `${uploadedCount} recordings were uploaded.`}{' '}
          <Anchor component={Link} to={paths.callRecordingsStatistics}>
            See statistics
          </Anchor>
        </Alert>
      )}

      <Group justify="flex-end">
        <Button onClick={upload} loading={uploading}>
          Upload
        </Button>
      </Group>
    </Stack>
  );
}

/** A row's outcome in words (not colour alone): Uploaded, Not uploaded with the reason, or still to send. */
function FileStatus({ outcome }: { outcome: FileOutcome | undefined }) {
  if (!outcome) return <Text size="sm" c="dimmed">Not sent yet</Text>;
  if (outcome.uploaded) {
    return (
      <Group gap={4} wrap="nowrap" c="green">
        <IconCheck size={16} aria-hidden />
        <Text size="sm" c="green">
          Uploaded
        </Text>
      </Group>
    );
  }
  return (
    <Group gap={4} wrap="nowrap" align="flex-start" c="red">
      <IconAlertTriangle size={16} aria-hidden style={{ flexShrink: 0, marginTop: 2 }} />
      <Text size="sm" c="red">
        Not uploaded: {outcome.reason}
      </Text>
    </Group>
  );
}

const sameFile = (a: File, b: File) => a.name === b.name && a.size === b.size && a.lastModified === b.lastModified;
const fileKey = (file: File) => `${file.name}-${file.size}-${file.lastModified}`;
