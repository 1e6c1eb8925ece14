import { Writable } from 'node:stream';
import pino from 'pino';
import { loggerOptions } from '../plugins/logging.ts';

/** A logger with the app's configuration (redaction included) that keeps its lines in memory. */
export function captureLogger(level: 'debug' | 'info' = 'info') {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { log: pino(loggerOptions({ LOG_LEVEL: level }) as pino.LoggerOptions, stream), lines };
}
