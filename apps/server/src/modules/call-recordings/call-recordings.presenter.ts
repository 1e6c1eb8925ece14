import type { CallRecording } from '@sales-agent/shared/schemas/call-recording';
import type { RecordingRow } from './call-recordings.service.ts';

/** The API's view of a recording; the storage key stays on the server. */
export function presentRecording(row: RecordingRow): CallRecording {
  return {
    id: row.id,
    userId: row.userId,
    user: { email: row.email },
    duration: row.duration,
    createdAt: row.createdAt.toISOString(),
    transcript: row.transcript,
    fileExtension: row.fileExtension,
    mimeType: row.mimeType,
    originalName: row.originalName,
    sizeBytes: row.sizeBytes,
  };
}
