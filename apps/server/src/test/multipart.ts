import { randomBytes } from 'node:crypto';

export interface MultipartFile {
  name: string;
  type?: string;
  data: Buffer;
  /** Defaults to `files`, the upload field of spec §7.7. */
  field?: string;
}

/** Builds a multipart/form-data body the way a browser's FormData does, for app.inject. */
export function multipartPayload(files: MultipartFile[], fields: Record<string, string> = {}) {
  const boundary = `----formdata-test-${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const file of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'files'}"; filename="${file.name}"\r\n` +
          `Content-Type: ${file.type ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      file.data,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
