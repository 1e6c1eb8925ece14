import { open, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { and, desc, eq, gte, inArray, lte, type SQL } from 'drizzle-orm';
import { parseFile } from 'music-metadata';
import type { ErrorCode } from '@sales-agent/shared/error-codes';
import type { RecordingListQuery } from '@sales-agent/shared/schemas/call-recording';
import type { Actor, AppContext } from '../../context.ts';
import { callRecordings, users } from '../../db/schema/index.ts';
import { AppError, badRequest, notFound } from '../../lib/errors.ts';
import { type ByteRange, createStorage, newStorageKey, type Storage } from '../../lib/storage.ts';
import { detectMediaType, MEDIA_SNIFF_BYTES, type MediaType } from './media-type.ts';
import { recordingStorage } from '../../lib/recording-storage.ts';
import { transcribeAudio } from '../../lib/transcription.ts';

export const NOT_MEDIA_MESSAGE = 'Only audio and video files are allowed.';

/** A file that has fully arrived in the storage's incoming directory, not yet checked. */
export interface IncomingFile {
  tempPath: string;
  /** As the client named it; used only for display and the download name, never for a path. */
  clientName: string;
  size: number;
}

const recordingColumns = {
  id: callRecordings.id,
  userId: callRecordings.userId,
  email: users.email,
  storageKey: callRecordings.storageKey,
  originalName: callRecordings.originalName,
  mimeType: callRecordings.mimeType,
  sizeBytes: callRecordings.sizeBytes,
  duration: callRecordings.duration,
  fileExtension: callRecordings.fileExtension,
  transcript: callRecordings.transcript,
  createdAt: callRecordings.createdAt,
};

export type RecordingRow = {
  id: number;
  userId: number;
  email: string;
  storageKey: string;
  originalName: string;
  mimeType: string;
  sizeBytes: number;
  duration: number;
  fileExtension: string;
  transcript: string | null;
  createdAt: Date;
};

/** A NORMAL user's own recordings, or everyone's for ADMIN; newest first; optional inclusive date window. */
export async function listRecordings(ctx: AppContext, actor: Actor, query: RecordingListQuery): Promise<RecordingRow[]> {
  const where: SQL[] = [];
  if (actor.role !== 'ADMIN') where.push(eq(callRecordings.userId, actor.id));
  if (query.start) where.push(gte(callRecordings.createdAt, new Date(query.start)));
  if (query.end) where.push(lte(callRecordings.createdAt, new Date(query.end)));
  return ctx.db
    .select(recordingColumns)
    .from(callRecordings)
    .innerJoin(users, eq(users.id, callRecordings.userId))
    .where(and(...where))
    .orderBy(desc(callRecordings.createdAt), desc(callRecordings.id));
}

/**
 * A recording the actor may see. Another user's recording answers exactly like a missing one (404), so
 * ids reveal nothing.
 */
export async function findRecording(ctx: AppContext, actor: Actor, id: number): Promise<RecordingRow> {
  const [row] = await ctx.db
    .select(recordingColumns)
    .from(callRecordings)
    .innerJoin(users, eq(users.id, callRecordings.userId))
    .where(eq(callRecordings.id, id))
    .limit(1);
  if (!row || (actor.role !== 'ADMIN' && row.userId !== actor.id)) throw notFound('Recording not found.', 'RECORDING_NOT_FOUND');
  return row;
}

/** A file of the upload that was not stored, and why (issue 24). */
export interface RefusedUpload {
  /** Position among the files sent, 0-based. */
  index: number;
  name: string;
  code: ErrorCode;
  reason: string;
}

/**
 * Checks every uploaded file (type from its own bytes, duration from the media) and stores each readable
 * one; a refused file is reported with its reason and never stored (issue 24: one bad file no longer costs
 * the good ones). When no file is readable the first file's refusal is thrown, as before. Every incoming
 * file is removed at the end, stored or not; a storage failure removes what this upload had stored.
 */
export async function storeRecordings(
  ctx: AppContext,
  actor: Actor,
  files: IncomingFile[],
): Promise<{ stored: RecordingRow[]; refused: RefusedUpload[] }> {
  const storage = recordingStorage(ctx);
  const storedKeys: string[] = [];
  try {
    if (files.length === 0) throw badRequest('Please select at least one file to upload', 'NO_FILES');
    const checked: { file: IncomingFile; type: MediaType; duration: number }[] = [];
    const refused: { upload: RefusedUpload; error: AppError }[] = [];
    for (const [index, file] of files.entries()) {
      try {
        checked.push({ file, ...(await checkFile(file)) });
      } catch (err) {
        // Only the file's own refusals (4xx) are per file; a disk error is the server's and fails the request.
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        const name = displayName(file.clientName, '') || `File ${index + 1}`;
        refused.push({ upload: { index, name, code: err.code, reason: err.message }, error: err });
      }
    }
    if (checked.length === 0) throw refused[0].error;
    const rows: RecordingRow[] = [];
    for (const { file, type, duration } of checked) {
      const key = newStorageKey(type.extension);
      await storage.putFile(key, file.tempPath, type.mime);
      storedKeys.push(key);
      const [row] = await ctx.db
        .insert(callRecordings)
        .values({
          userId: actor.id,
          storageKey: key,
          originalName: displayName(file.clientName, type.extension),
          mimeType: type.mime,
          sizeBytes: file.size,
          duration,
          fileExtension: type.extension,
        })
        .returning();
      rows.push({ ...row, email: actor.email });
    }
    return { stored: rows, refused: refused.map((r) => r.upload) };
  } catch (err) {
    await Promise.all(storedKeys.map((key) => storage.remove(key).catch(() => undefined)));
    if (storedKeys.length > 0) {
      await ctx.db.delete(callRecordings).where(inArray(callRecordings.storageKey, storedKeys));
    }
    throw err;
  } finally {
    await Promise.all(files.map((f) => rm(f.tempPath, { force: true })));
  }
}

/** The file's type, from its own bytes, and its duration; or the 400 it is refused with. */
async function checkFile(file: IncomingFile): Promise<{ type: MediaType; duration: number }> {
  const type = detectMediaType(await readHead(file.tempPath));
  if (!type) throw badRequest(NOT_MEDIA_MESSAGE, 'NOT_MEDIA');
  return { type, duration: await readDuration(file, type) };
}

async function readHead(filePath: string): Promise<Uint8Array> {
  const handle = await open(filePath, 'r');
  try {
    const buffer = Buffer.alloc(MEDIA_SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, MEDIA_SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Seconds, from the media itself; a file whose magic number matches but whose body cannot be read is refused. */
async function readDuration(file: IncomingFile, type: MediaType): Promise<number> {
  try {
    const metadata = await parseFile(file.tempPath, { duration: true, skipCovers: true });
    const seconds = metadata.format.duration;
    return seconds && Number.isFinite(seconds) ? Math.round(seconds * 1000) / 1000 : 0;
  } catch {
    throw badRequest(`The file "${displayName(file.clientName, type.extension)}" could not be read as audio or video.`, 'UNREADABLE_MEDIA');
  }
}

/**
 * The client's file name reduced to a harmless display name: no directories, no control characters. An empty
 * name becomes `recording.<extension>`, or stays empty when no extension is given.
 */
export function displayName(clientName: string, extension: string): string {
  const base = clientName.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 200);
  if (clean && clean !== '.' && clean !== '..') return clean;
  return extension ? `recording.${extension}` : '';
}

/** An ASCII-only download name ending in the detected extension (the UTF-8 name goes in filename*). */
export function downloadName(row: Pick<RecordingRow, 'id' | 'originalName' | 'fileExtension'>): { ascii: string; utf8: string } {
  const stem = path.parse(row.originalName).name || `recording-${row.id}`;
  const ascii = stem.replace(/[^A-Za-z0-9._ -]/g, '_').replace(/^[.\s]+/, '').slice(0, 100) || `recording-${row.id}`;
  return { ascii: `${ascii}.${row.fileExtension}`, utf8: `${stem}.${row.fileExtension}` };
}

export async function recordingSize(ctx: AppContext, row: RecordingRow): Promise<number> {
  const size = await recordingStorage(ctx).size(row.storageKey);
  if (size === null) throw notFound('The recording file is missing from storage.', 'RECORDING_FILE_MISSING');
  return size;
}

export function openRecording(ctx: AppContext, row: RecordingRow, range?: ByteRange): Promise<Readable> {
  return recordingStorage(ctx).read(row.storageKey, range);
}

/** Removes the row and its file. */
export async function deleteRecording(ctx: AppContext, actor: Actor, id: number): Promise<void> {
  const row = await findRecording(ctx, actor, id);
  await ctx.db.delete(callRecordings).where(eq(callRecordings.id, row.id));
  await recordingStorage(ctx).remove(row.storageKey);
}

/** Sends the recording to the speech-to-text provider and keeps the text on the recording. */
export async function generateTranscript(ctx: AppContext, actor: Actor, id: number): Promise<string> {
  const row = await findRecording(ctx, actor, id);
  await recordingSize(ctx, row);
  const audio = await openRecording(ctx, row);
  const text = await transcribeAudio(ctx, audio, `recording-${row.id}.${row.fileExtension}`, row.mimeType);
  await ctx.db.update(callRecordings).set({ transcript: text }).where(eq(callRecordings.id, row.id));
  return text;
}

/** The stored transcript with the call's details (spec §7.7); 404 while there is none. */
export async function readTranscript(ctx: AppContext, actor: Actor, id: number) {
  const row = await findRecording(ctx, actor, id);
  if (row.transcript === null) throw notFound('This recording has no transcript yet.', 'TRANSCRIPT_NOT_FOUND');
  return {
    transcript: row.transcript,
    callInfo: {
      date: row.createdAt.toISOString(),
      user: row.email,
      duration: row.duration,
      fileExtension: row.fileExtension,
    },
  };
}
