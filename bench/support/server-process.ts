/** Helpers for benchmarks that run the real server in a child process of their own. */
import { readFileSync } from 'node:fs';

/** Resolves once `${base}/api/health` answers 2xx; gives up after two minutes. */
export async function waitForHealth(base: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not start');
}

/** CPU seconds (user + system) of a process so far, from /proc. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * The environment of a benchmarked server process: this process's env, production mode on loopback `port`,
 * data under `dataDir`, warnings only, no OpenAI key (the offline demo agent), then `extra`.
 */
export function serverEnv(port: number, dataDir: string, extra: Record<string, string>): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    OPENAI_API_KEY: '',
    ...extra,
  };
}
