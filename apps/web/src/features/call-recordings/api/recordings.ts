import { queryOptions } from '@tanstack/react-query';
import type { RecordingList, TranscriptWithCallInfo } from '@sales-agent/shared/schemas/call-recording';
import { api } from '../../../lib/api-client.ts';
import { useWrite } from '../../../lib/use-write.ts';

/** The query keys of call recordings; `all` refreshes the lists, transcripts and the transcription status. */
export const recordingKeys = {
  all: () => ['call-recordings'] as const,
  list: (range: { start?: string; end?: string }) => ['call-recordings', 'list', range] as const,
  transcript: (id: number | string) => ['call-recordings', 'transcript', String(id)] as const,
  transcriptionStatus: () => ['call-recordings', 'transcription-status'] as const,
};

/** The user's recordings (all of them for ADMIN) within an optional inclusive window of ISO instants. */
export const recordingsQuery = (range: { start?: string; end?: string }) =>
  queryOptions({
    queryKey: recordingKeys.list(range),
    queryFn: async () => (await api.get<RecordingList>('/api/call-recording/list', range)).recordings,
  });

export const transcriptQuery = (id: number | string) =>
  queryOptions({
    queryKey: recordingKeys.transcript(id),
    queryFn: () => api.get<TranscriptWithCallInfo>(`/api/call-recording/${id}/transcript`),
    retry: false,
  });

/**
 * Whether Generate Transcript can work (issue 12): without a transcription provider the button is disabled
 * with the server's sentence instead of failing with 'Please try again'.
 */
export const transcriptionStatusQuery = () =>
  queryOptions({
    queryKey: recordingKeys.transcriptionStatus(),
    queryFn: () => api.get<{ available: boolean; reason: string | null }>('/api/call-recording/transcription'),
    staleTime: 60_000,
  });

/** The reason of a failure (e.g. no speech-to-text provider configured) is a toast, spec §8.1. */
export const useGenerateTranscript = () =>
  useWrite({
    write: (id: number) => api.post<{ transcript: string }>(`/api/call-recording/${id}/transcript`),
    refreshes: () => [recordingKeys.all()],
  });

/** A failure is the page's alert (spec), not a toast. */
export const useDeleteRecording = () =>
  useWrite({
    write: (id: number) => api.delete<{ message: string }>(`/api/call-recording/${id}`),
    refreshes: () => [recordingKeys.all()],
    notice: 'Recording deleted.',
    showsItself: () => true,
  });

/** For the inline player (Range requests, Content-Disposition inline). */
export const recordingStreamUrl = (id: number | string) => `/api/call-recording/${id}/stream`;

/** For Download links (Content-Disposition attachment). */
export const recordingDownloadUrl = (id: number | string) => `/api/call-recording/${id}/download`;
