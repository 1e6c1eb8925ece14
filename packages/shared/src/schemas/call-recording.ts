import { z } from 'zod';
import { isStorableInstant } from './common.ts';

/** Field name of the multipart upload (spec §7.7). */
export const UPLOAD_FIELD = 'files';

/** The file types the upload page names (spec §2.12); the server accepts any audio or video it recognises. */
export const DISPLAYED_FORMATS = ['MP3', 'WAV', 'MP4'] as const;

/**
 * Optional date window of the recordings list: ISO instants, both inclusive. The web app sends the start
 * of the first day (00:00) and the end of the last day (23:59:59.999) in the user's time zone (spec §5).
 */
export const recordingListQuery = z
  .object({
    start: z.iso.datetime({ offset: true }).refine(isStorableInstant, 'must be in year 1 or later').optional(),
    end: z.iso.datetime({ offset: true }).refine(isStorableInstant, 'must be in year 1 or later').optional(),
  })
  .refine((q) => !q.start || !q.end || new Date(q.start) <= new Date(q.end), {
    message: 'start must not be after end',
    path: ['start'],
  });
export type RecordingListQuery = z.infer<typeof recordingListQuery>;

/** One call recording as the API shows it (spec §3 "Call recording"). */
export const callRecording = z.object({
  id: z.number(),
  userId: z.number(),
  user: z.object({ email: z.string() }),
  /** Seconds, read from the media. */
  duration: z.number(),
  createdAt: z.string(),
  transcript: z.string().nullable(),
  /** Lower-case extension of the detected type (mp3, wav, mp4, …), without the dot. */
  fileExtension: z.string(),
  mimeType: z.string(),
  originalName: z.string(),
  sizeBytes: z.number(),
});
export type CallRecording = z.infer<typeof callRecording>;

export const recordingList = z.object({ recordings: z.array(callRecording) });
export type RecordingList = z.infer<typeof recordingList>;

/**
 * A file of an upload that was not stored (issue 24): its place among the files sent (0-based, in the order of
 * the multipart parts), its display name, and the reason in words a user understands.
 */
export const refusedFile = z.object({ index: z.number(), name: z.string(), code: z.string(), reason: z.string() });
export type RefusedFile = z.infer<typeof refusedFile>;

/**
 * 201 of POST /api/call-recording/upload. Every readable file is stored; `refused` is present only when some
 * files were not (an all-good upload answers exactly `{ message, recordings }`, spec §7.7).
 */
export const uploadResult = z.object({ message: z.string(), recordings: z.array(callRecording), refused: z.array(refusedFile).optional() });
export type UploadResult = z.infer<typeof uploadResult>;

export const generatedTranscript = z.object({ transcript: z.string() });

/** GET /api/call-recording/{id}/transcript (spec §7.7). */
export const transcriptWithCallInfo = z.object({
  transcript: z.string(),
  callInfo: z.object({
    date: z.string(),
    user: z.string(),
    duration: z.number(),
    fileExtension: z.string(),
  }),
});
export type TranscriptWithCallInfo = z.infer<typeof transcriptWithCallInfo>;
