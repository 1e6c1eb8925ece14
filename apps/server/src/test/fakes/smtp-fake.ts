import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/**
 * A loopback SMTP server (the `smtp-server` package) that keeps every message it is handed, for the
 * forgot-password tests: the product sends through its real nodemailer transport to `url` (SMTP_URL), and the
 * test reads the mail, and the link in it, from here. No TLS, no authentication.
 */
export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  /** The decoded plain-text body. */
  text: string;
}

export class SmtpFake {
  readonly mails: ReceivedMail[] = [];
  private readonly waiters: (() => void)[] = [];
  private server!: SMTPServer;
  port = 0;

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(port = 0): Promise<this> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          this.mails.push(parseMail(Buffer.concat(chunks).toString('utf8'), session.envelope));
          for (const wake of this.waiters.splice(0)) wake();
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  /** The first mail (already here or still to come) to `to`; rejects after `timeoutMs`. */
  nextMailTo(to: string, timeoutMs = 10_000): Promise<ReceivedMail> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no mail to ${to} within ${timeoutMs} ms`)), timeoutMs);
      const check = () => {
        const index = this.mails.findIndex((m) => m.to.includes(to));
        if (index === -1) return void this.waiters.push(check);
        clearTimeout(timer);
        resolve(this.mails.splice(index, 1)[0]);
      };
      check();
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Headers and the decoded text body of a single-part message as nodemailer writes it. */
function parseMail(raw: string, envelope: { mailFrom: false | { address: string }; rcptTo: { address: string }[] }): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const header = (name: string) => head.match(new RegExp(`^${name}:\\s*(.*)$`, 'im'))?.[1]?.trim() ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  const text =
    encoding === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
      : encoding === 'quoted-printable'
        ? Buffer.from(body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8')
        : body;
  return {
    from: envelope.mailFrom ? envelope.mailFrom.address : '',
    to: envelope.rcptTo.map((r) => r.address),
    subject: header('Subject'),
    text: text.replace(/\r\n/g, '\n'),
  };
}

export async function startSmtpFake(port = 0): Promise<SmtpFake> {
  return new SmtpFake().start(port);
}

/** The set-password link of a forgot-password mail. */
export const linkIn = (mail: ReceivedMail) => mail.text.match(/https?:\/\/\S+\/set-password\?\S+/)?.[0] ?? null;
