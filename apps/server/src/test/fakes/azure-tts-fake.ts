import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, listenOnLoopback, readBody } from './loopback.ts';

/**
 * A loopback Azure AI Speech text-to-speech endpoint (third-party-facts.md "Azure Text to Speech"):
 * `POST /cognitiveservices/v1` with `Ocp-Apim-Subscription-Key`, `Content-Type: application/ssml+xml` and
 * `X-Microsoft-OutputFormat`, SSML in, audio bytes out. Like Azure it answers 401 for a wrong key and 400 for
 * a missing header or SSML it cannot read. Point AZURE_TTS_URL at `endpoint`.
 */
export interface AzureTtsRequest {
  key: string | undefined;
  contentType: string | undefined;
  outputFormat: string | undefined;
  ssml: string;
  /** Read from the SSML. */
  voice: string | null;
  language: string | null;
  text: string | null;
}

export interface AzureTtsFake {
  endpoint: string;
  requests: AzureTtsRequest[];
  /** The audio the fake answers for a text: deterministic, so tests can compare what Twilio would play. */
  audioFor(text: string): Buffer;
  /** The next `times` requests answer this HTTP status with an empty body (as Azure does). */
  failNext(status: number, times?: number): void;
  close(): Promise<void>;
}

const OUTPUT_FORMATS = new Set(['audio-16khz-32kbitrate-mono-mp3', 'audio-24khz-48kbitrate-mono-mp3', 'riff-8khz-8bit-mono-mulaw', 'riff-16khz-16bit-mono-pcm']);

const unescapeXml = (text: string) =>
  text.replace(/&(lt|gt|amp|apos|quot);/g, (_, e: string) => ({ lt: '<', gt: '>', amp: '&', apos: "'", quot: '"' })[e]!);

/** An MP3-looking body: an ID3v2 header followed by bytes derived from the text. */
function fakeMp3(text: string): Buffer {
  const id3 = Buffer.from([0x49, 0x44, 0x33, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);
  return Buffer.concat([id3, createHash('sha256').update(text).digest(), Buffer.from(text, 'utf8')]);
}

export async function startAzureTtsFake(options: { key: string }): Promise<AzureTtsFake> {
  const requests: AzureTtsRequest[] = [];
  const failures: number[] = [];
  const server = createServer((req, res) => void handle(req, res));

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const ssml = (await readBody(req)).toString('utf8');
    const speak = /^<speak\b[^>]*\bxml:lang="([^"]+)"[^>]*>\s*<voice\b[^>]*\bname="([^"]+)"[^>]*>([\s\S]*)<\/voice>\s*<\/speak>$/.exec(ssml.trim());
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const request: AzureTtsRequest = {
      key: header('ocp-apim-subscription-key'),
      contentType: header('content-type'),
      outputFormat: header('x-microsoft-outputformat'),
      ssml,
      voice: speak?.[2] ?? null,
      language: speak?.[1] ?? null,
      text: speak ? unescapeXml(speak[3]) : null,
    };
    requests.push(request);
    const end = (status: number) => {
      res.writeHead(status);
      res.end();
    };
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://fake').pathname !== '/cognitiveservices/v1') return end(404);
    if (request.key !== options.key) return end(401);
    const failure = failures.shift();
    if (failure) return end(failure);
    if (request.contentType !== 'application/ssml+xml' || !request.outputFormat || !OUTPUT_FORMATS.has(request.outputFormat)) return end(400);
    if (!speak || /[<>]/.test(speak[3])) return end(400);
    const audio = fakeMp3(request.text!);
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': audio.length });
    res.end(audio);
  }

  const url = await listenOnLoopback(server);
  return {
    endpoint: `${url}/cognitiveservices/v1`,
    requests,
    audioFor: fakeMp3,
    failNext: (status, times = 1) => {
      for (let i = 0; i < times; i += 1) failures.push(status);
    },
    close: () => closeServer(server),
  };
}
