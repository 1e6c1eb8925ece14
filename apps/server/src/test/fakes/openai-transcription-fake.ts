import { createHash } from 'node:crypto';
import http from 'node:http';
import { listenOnLoopback } from './loopback.ts';

/**
 * A loopback stand-in for OpenAI's speech-to-text endpoint, speaking its wire format:
 * multipart POST /v1/audio/transcriptions (fields `file`, `model`, …) answered with JSON `{ text }`;
 * failures as `{ error: { message, type, param, code } }` with the HTTP status OpenAI uses.
 * https://platform.openai.com/docs/api-reference/audio/createTranscription
 */
export interface ReceivedTranscription {
  model: string;
  fileName: string;
  fileType: string;
  fileSize: number;
  /** SHA-256 of the uploaded bytes, to prove the whole file arrived. */
  fileSha256: string;
}

export interface FakeFailure {
  status: number;
  message: string;
  type: string;
  code: string | null;
}

export interface OpenAiTranscriptionFake {
  /** Base URL to use as OPENAI_BASE_URL (ends in /v1). */
  baseUrl: string;
  apiKey: string;
  requests: ReceivedTranscription[];
  /** The next answers fail with this error (in order); afterwards transcripts succeed again. */
  failNext(failure: FakeFailure): void;
  close(): Promise<void>;
}

/** The text the fake answers: a short two-party call, plus the byte count it received. */
export const fakeTranscriptText = (fileSize: number) =>
  `Agent: Hello, thanks for taking my call.\nProspect: Sure, tell me more about the offer.\nAgent: It saves you two hours a day. (${fileSize} bytes of audio)`;

export async function startOpenAiTranscriptionFake(options: { apiKey?: string; port?: number } = {}): Promise<OpenAiTranscriptionFake> {
  const apiKey = options.apiKey ?? 'sk-fake-transcription-key';
  const requests: ReceivedTranscription[] = [];
  const failures: FakeFailure[] = [];

  const sendError = (res: http.ServerResponse, f: FakeFailure) => {
    res.writeHead(f.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: f.message, type: f.type, param: null, code: f.code } }));
  };

  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (req.method !== 'POST' || url.pathname !== '/v1/audio/transcriptions') {
        return sendError(res, { status: 404, message: `Invalid URL (${req.method} ${url.pathname})`, type: 'invalid_request_error', code: null });
      }
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        return sendError(res, {
          status: 401,
          message: 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        });
      }
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const form = await new Request('http://fake/v1/audio/transcriptions', {
        method: 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? '' },
        body: Buffer.concat(chunks),
      }).formData();
      const file = form.get('file');
      const model = form.get('model');
      if (!(file instanceof Blob) || typeof model !== 'string') {
        return sendError(res, { status: 400, message: "1 validation error: 'file' and 'model' are required", type: 'invalid_request_error', code: null });
      }
      const failure = failures.shift();
      if (failure) return sendError(res, failure);
      const bytes = Buffer.from(await file.arrayBuffer());
      requests.push({
        model,
        fileName: (file as File).name,
        fileType: file.type,
        fileSize: bytes.length,
        fileSha256: createHash('sha256').update(bytes).digest('hex'),
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ text: fakeTranscriptText(bytes.length), usage: { type: 'duration', seconds: 3 } }));
    } catch (err) {
      sendError(res, { status: 500, message: `Fake failed: ${(err as Error).message}`, type: 'server_error', code: null });
    }
  });
  const url = await listenOnLoopback(server, options.port);
  return {
    baseUrl: `${url}/v1`,
    apiKey,
    requests,
    failNext: (failure) => failures.push(failure),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
