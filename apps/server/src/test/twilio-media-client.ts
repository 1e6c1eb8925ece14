import { randomBytes } from 'node:crypto';
import twilio from 'twilio';
import { WebSocket } from 'ws';

/**
 * A Twilio Media Streams client for tests: opens the WebSocket as Twilio does (X-Twilio-Signature over the
 * stream URL, signed with the account's Auth Token) and speaks Twilio's messages — connected, start, media
 * (base64 μ-law, 20 ms frames), mark, stop — recording what the server sends back (media, mark, clear).
 */
export interface TwilioOutbound {
  event: 'media' | 'mark' | 'clear';
  streamSid: string;
  media?: { payload: string };
  mark?: { name: string };
}

export const twilioSid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;

export class TwilioMediaClient {
  readonly received: TwilioOutbound[] = [];
  readonly streamSid = twilioSid('MZ');
  closeCode: number | null = null;
  private sequence = 0;
  private chunk = 0;
  private waiters: { match: () => boolean; resolve: () => void }[] = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.received.push(JSON.parse(data.toString()) as TwilioOutbound);
      this.check();
    });
    socket.on('close', (code) => {
      this.closeCode = code;
      this.check();
    });
  }

  /**
   * Connects to `wsUrl` (where the server listens). `signedUrl` is the URL Twilio signs (the TwiML stream URL,
   * PUBLIC_URL-based); `authToken` null sends no signature at all.
   */
  static async connect(wsUrl: string, options: { signedUrl: string; authToken: string | null }): Promise<TwilioMediaClient> {
    const headers: Record<string, string> = {};
    if (options.authToken !== null) headers['X-Twilio-Signature'] = twilio.getExpectedTwilioSignature(options.authToken, options.signedUrl, {});
    const socket = new WebSocket(wsUrl, { headers, perMessageDeflate: false });
    const client = new TwilioMediaClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return client;
  }

  private send(message: Record<string, unknown>): void {
    this.sequence += 1;
    this.socket.send(JSON.stringify({ ...message, sequenceNumber: String(this.sequence) }));
  }

  connected(): void {
    this.socket.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
  }

  start(options: { accountSid: string; callSid: string; customParameters: Record<string, string> }): void {
    this.send({
      event: 'start',
      streamSid: this.streamSid,
      start: {
        streamSid: this.streamSid,
        accountSid: options.accountSid,
        callSid: options.callSid,
        tracks: ['inbound'],
        customParameters: options.customParameters,
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
  }

  /** One caller frame (160 bytes = 20 ms by default). */
  media(audio: Buffer): void {
    this.chunk += 1;
    this.send({
      event: 'media',
      streamSid: this.streamSid,
      media: { track: 'inbound', chunk: String(this.chunk), timestamp: String(this.chunk * 20), payload: audio.toString('base64') },
    });
  }

  /** Echoes a mark, as Twilio does once the audio before it has played. */
  mark(name: string): void {
    this.send({ event: 'mark', streamSid: this.streamSid, mark: { name } });
  }

  stop(accountSid: string, callSid: string): void {
    this.send({ event: 'stop', streamSid: this.streamSid, stop: { accountSid, callSid } });
  }

  /** Resolves after the server has read everything sent before (a ping is answered in order). */
  roundTrip(): Promise<void> {
    return new Promise((resolve) => {
      this.socket.once('pong', () => resolve());
      this.socket.ping();
    });
  }

  of(event: TwilioOutbound['event']): TwilioOutbound[] {
    return this.received.filter((m) => m.event === event);
  }

  /** The agent audio received so far, concatenated. */
  audio(): Buffer {
    return Buffer.concat(this.of('media').map((m) => Buffer.from(m.media!.payload, 'base64')));
  }

  /** Resolves once `predicate` holds for what was received (checked on every message and on close). */
  until(predicate: (client: TwilioMediaClient) => boolean): Promise<void> {
    if (predicate(this)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ match: () => predicate(this), resolve }));
  }

  whenClosed(): Promise<number> {
    return this.until((c) => c.closeCode !== null).then(() => this.closeCode!);
  }

  close(): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.close(1000);
  }

  private check(): void {
    for (const waiter of [...this.waiters]) {
      if (waiter.match()) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }
}
