import type { UploadResult } from '@sales-agent/shared/schemas/call-recording';
import { UPLOAD_FIELD } from '@sales-agent/shared/schemas/call-recording';
import { errorTextFrom, UNEXPECTED_ERROR } from '../../../lib/api-client.ts';

export const UPLOAD_FAILED_MESSAGE = 'Failed to upload files';

/**
 * Uploads recordings as multipart (field `files`, spec §7.7). Uses XMLHttpRequest because fetch cannot
 * report upload progress; `onProgress` gets 0–100 as bytes leave the browser. Rejects with an Error whose
 * message is the server's error text, or 'Failed to upload files' (spec §8.3).
 */
export function uploadRecordings(files: File[], onProgress: (percent: number) => void, signal?: AbortSignal): Promise<UploadResult> {
  const form = new FormData();
  for (const file of files) form.append(UPLOAD_FIELD, file, file.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/call-recording/upload');
    xhr.withCredentials = true;
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(Math.min(100, Math.round((event.loaded / event.total) * 100)));
    };
    xhr.onload = () => {
      let body: unknown = xhr.responseText;
      if ((xhr.getResponseHeader('content-type') ?? '').includes('application/json') && xhr.responseText) {
        try {
          body = JSON.parse(xhr.responseText);
        } catch {
          body = xhr.responseText;
        }
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(100);
        resolve(body as UploadResult);
        return;
      }
      const text = errorTextFrom(body);
      reject(new Error(text === UNEXPECTED_ERROR ? UPLOAD_FAILED_MESSAGE : text));
    };
    xhr.onerror = () => reject(new Error(UPLOAD_FAILED_MESSAGE));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}

/** What became of one selected file in an upload (issue 24): stored, or refused with the server's reason. */
export type FileOutcome = { uploaded: true } | { uploaded: false; reason: string };

/**
 * Each sent file's outcome. The server names refused files by their place among the files sent (the order
 * they were appended to the form); every other file of a 201 was stored.
 */
export function uploadOutcomes(sent: File[], result: UploadResult): Map<File, FileOutcome> {
  const refused = new Map((result.refused ?? []).map((r) => [r.index, r.reason]));
  return new Map(
    sent.map((file, index): [File, FileOutcome] => {
      const reason = refused.get(index);
      return [file, reason === undefined ? { uploaded: true } : { uploaded: false, reason }];
    }),
  );
}
