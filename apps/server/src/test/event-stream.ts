import http from 'node:http';

export interface EventStream {
  status: number;
  type?: string;
  /** Everything received so far. */
  text(): string;
  /** Resolves with everything received once `until` holds for it (at once if it already does). */
  read(until: (text: string) => boolean): Promise<string>;
  close(): void;
}

/**
 * Opens a live-event stream (SSE) over a real socket, as a browser's EventSource does, and resolves once the
 * response head is in. Reads wait for the data itself (no timers): a test fails by its own timeout when an
 * expected event never comes.
 */
export function openEventStream(url: string, cookie?: string): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: cookie ? { cookie } : {} }, (res) => {
      let text = '';
      const waiters: (() => void)[] = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        for (const w of waiters.splice(0)) w();
      });
      resolve({
        status: res.statusCode ?? 0,
        type: res.headers['content-type'],
        text: () => text,
        read: (until) =>
          new Promise((done) => {
            const check = () => (until(text) ? done(text) : waiters.push(check));
            check();
          }),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}
