import '@mantine/dropzone/styles.css';
import { ActionIcon, Alert, Anchor, Button, Card, Group, Progress, Stack, Text } from '@mantine/core';
import { Dropzone } from '@mantine/dropzone';
import { IconX } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { DISPLAYED_FORMATS } from '@sales-agent/shared/schemas/call-recording';
import { useState } from 'react';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { RecordTable } from '../../../components/record-table.tsx';
import { paths } from '../../../config/paths.ts';
import { toastSuccess } from '../../../lib/toast.ts';
import { recordingKeys } from '../api/recordings.ts';
import { UPLOAD_FAILED_MESSAGE, uploadRecordings } from '../api/upload.ts';
import { formatBytes, partitionMediaFiles, REJECTED_FILES_MESSAGE } from '../components/statistics.ts';

const NO_FILES_MESSAGE = 'Please select at least one file to upload';

/** Spec §2.12 upload: drag-and-drop or multi-select, chosen files with sizes and remove, a real progress bar. */
export default function UploadPage() {
  const client = useQueryClient();
  const [files, setFiles] = useState<File[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [uploading, setUploading] = useState(false);
  const [uploadedCount, setUploadedCount] = useState<number | null>(null);

  const addFiles = (incoming: File[]) => {
    const { kept, rejected } = partitionMediaFiles(incoming);
    setError(rejected.length > 0 ? REJECTED_FILES_MESSAGE : null);
    setUploadedCount(null);
    setProgress(null);
    setFiles((current) => [...current, ...kept.filter((f) => !current.some((c) => sameFile(c, f)))]);
  };

  const removeFile = (index: number) => setFiles((current) => current.filter((_, i) => i !== index));

  const upload = async () => {
    if (files.length === 0) {
      setError(NO_FILES_MESSAGE);
      return;
    }
    setError(null);
    setUploading(true);
    setUploadedCount(null);
    setProgress(0);
    try {
      const result = await uploadRecordings(files, setProgress);
      setUploadedCount(result.recordings.length);
      setFiles([]);
      toastSuccess(result.message);
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

const sameFile = (a: File, b: File) => a.name === b.name && a.size === b.size && a.lastModified === b.lastModified;
const fileKey = (file: File) => `${file.name}-${file.size}-${file.lastModified}`;
