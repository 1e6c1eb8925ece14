import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  /** The raw body, as signed. */
  body: string;
  json: { id: string; type: string; createdAt: string; data: Record<string, unknown> };
}

/**
 * A loopback receiver of outbound webhooks (issue 27): records each request with its raw body and answers the
 * next status of `statuses` (then 200 for ever), at once.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private statuses: number[] = [];
  private server: Server | null = null;
  url = '';

  /** The next requests are answered with these statuses, in order; 200 after them. */
  answer(...statuses: number[]): void {
    this.statuses = statuses;
  }

  clear(): void {
    this.received.length = 0;
  }

  ofType(type: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.json.type === type);
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.received.push({ headers: req.headers, body, json: JSON.parse(body) });
        res.statusCode = this.statuses.shift() ?? 200;
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
