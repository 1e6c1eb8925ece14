import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * The only reader of `process.env` (DESIGN.md §4). Everything is validated at start; a bad value stops
 * the process with a list of every problem instead of failing later in a request.
 */
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));
const url = (fallback?: string) =>
  fallback === undefined
    ? optionalString.pipe(z.url().optional())
    : optionalString.transform((v) => v ?? fallback).pipe(z.url());

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: optionalString,
  PUBLIC_URL: url(),
  APP_SECRET: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  ADMIN_EMAIL: optionalString.pipe(z.email().optional()),
  ADMIN_PASSWORD: optionalString.pipe(z.string().min(8, 'must be at least 8 characters').optional()),
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: url(),
  LLM_MODEL: z.string().default('gpt-4o-mini'),
  LLM_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** Retries of one LLM call on 408/409/429/5xx and connection errors (the openai SDK's backoff). */
  LLM_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  /**
   * Jobs one server process runs at the same time (docs/architecture.md "Jobs"); slow ones (agent turns) take at
   * most three quarters. Mostly waiting on an LLM, so sized for many conversations at once (docs/performance.md).
   */
  JOB_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(256),
  /** Days a processed webhook_inbox row (the provider's raw payload) is kept for inspection. */
  WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(7),
  TRANSCRIBE_MODEL: z.string().default('whisper-1'),
  META_APP_ID: optionalString,
  META_APP_SECRET: optionalString,
  META_VERIFY_TOKEN: optionalString,
  META_GRAPH_URL: url('https://graph.facebook.com'),
  META_GRAPH_VERSION: z.string().default('v21.0'),
  INSTAGRAM_APP_ID: optionalString,
  INSTAGRAM_APP_SECRET: optionalString,
  INSTAGRAM_GRAPH_URL: url('https://graph.instagram.com'),
  /** Instagram Login's code exchange host (POST /oauth/access_token). */
  INSTAGRAM_API_URL: url('https://api.instagram.com'),
  /** Facebook Login's OAuth dialog base ({base}/{version}/dialog/oauth); a loopback fake in E2E. */
  META_DIALOG_URL: url('https://www.facebook.com'),
  /** Instagram Login's OAuth dialog ({base}/oauth/authorize); a loopback fake in E2E. */
  INSTAGRAM_DIALOG_URL: url('https://www.instagram.com'),
  TWILIO_API_URL: url('https://api.twilio.com'),
  AZURE_TTS_KEY: optionalString,
  AZURE_TTS_REGION: optionalString,
  AZURE_TTS_URL: url(),
  OPENAI_REALTIME_URL: optionalString.transform((v) => v ?? 'wss://api.openai.com/v1/realtime'),
  REALTIME_MODEL: z.string().default('gpt-realtime'),
  GHL_API_URL: url('https://services.leadconnectorhq.com'),
  /** GoHighLevel Private Integration token and location of types whose config is the bare "GHL" (docs/crm.md). */
  GHL_API_KEY: optionalString,
  GHL_LOCATION_ID: optionalString,
  STORAGE_DIR: optionalString,
  S3_BUCKET: optionalString,
  S3_ENDPOINT: url(),
  S3_REGION: optionalString,
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  UPLOAD_MAX_BYTES: z.coerce.number().int().positive().default(1024 * 1024 * 1024),
  /** Requests per minute per client on login and register. */
  AUTH_RATE_LIMIT: z.coerce.number().int().positive().default(20),
  /** New web-chat conversations and messages per minute per user, or per client address when anonymous (LLM cost guard). */
  CHAT_RATE_LIMIT: z.coerce.number().int().positive().default(30),
  /** Messages written into one conversation per hour, by anyone (a chat cannot take unbounded messages). */
  CHAT_CONVERSATION_LIMIT: z.coerce.number().int().positive().default(120),
  /** Bytes of one upload request, all files together (UPLOAD_MAX_BYTES is per file). */
  UPLOAD_REQUEST_MAX_BYTES: z.coerce.number().int().positive().default(2 * 1024 * 1024 * 1024),
  /** Bytes one user may upload per day. */
  UPLOAD_DAILY_BYTES: z.coerce.number().int().positive().default(5 * 1024 * 1024 * 1024),
  /** Bytes of recordings one user may keep stored. */
  UPLOAD_QUOTA_BYTES: z.coerce.number().int().positive().default(20 * 1024 * 1024 * 1024),
  /** Free space the storage disk keeps: below it uploads are refused (507) and /api/health/ready fails. */
  STORAGE_MIN_FREE_BYTES: z.coerce.number().int().min(0).default(1024 * 1024 * 1024),
  /** Bearer token of GET /api/metrics; unset = no metrics endpoint (404). */
  METRICS_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  /** Milliseconds the conversation list may spend counting for totalPages before answering "N+" pages. */
  CONVERSATION_LIST_COUNT_BUDGET_MS: z.coerce.number().int().positive().default(30),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Which X-Forwarded-For hops to believe for the client address (rate limits): unset/false = none (the
   * connection's address), a number = that many proxies in front, otherwise addresses/CIDRs, comma-separated.
   * Believing every hop would let any client pick its own address and escape the login limit.
   */
  TRUST_PROXY: z
    .string()
    .trim()
    .optional()
    .transform((v): boolean | number | string => {
      if (!v || v === 'false' || v === '0') return false;
      if (v === 'true') return true;
      return /^\d+$/.test(v) ? Number(v) : v;
    }),
  WEB_DIST_DIR: optionalString,
  /** JSON file with the pricing calculator's unit prices (docs/pricing.md); default: the bundled prices.json. */
  PRICING_FILE: optionalString,
});

export type RawEnv = z.infer<typeof envSchema>;

export interface AppConfig extends Omit<RawEnv, 'APP_SECRET' | 'PUBLIC_URL' | 'STORAGE_DIR'> {
  APP_SECRET: string;
  PUBLIC_URL: string;
  STORAGE_DIR: string;
}

export class EnvError extends Error {}

/**
 * Parses an environment (process.env by default). With PGlite the app secret is generated once into
 * DATA_DIR; with PostgreSQL several instances must share it, so it has to be given.
 */
export function loadConfig(source: Record<string, string | undefined> = process.env): AppConfig {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new EnvError(`Invalid environment:\n${lines.join('\n')}`);
  }
  const env = parsed.data;
  const dataDir = path.resolve(env.DATA_DIR);
  let secret = env.APP_SECRET;
  if (!secret) {
    if (env.DATABASE_URL) throw new EnvError('Invalid environment:\n  APP_SECRET: required when DATABASE_URL is set');
    secret = readOrCreateSecret(dataDir);
  }
  return {
    ...env,
    DATA_DIR: dataDir,
    APP_SECRET: secret,
    PUBLIC_URL: (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, ''),
    STORAGE_DIR: path.resolve(env.STORAGE_DIR ?? path.join(dataDir, 'recordings')),
  };
}

function readOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, 'app-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
