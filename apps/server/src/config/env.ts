import { isTimeZone } from '../lib/time-zone.ts';
import { isSupportedCountry, type CountryCode } from 'libphonenumber-js';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { parseEnv } from 'node:util';
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
  /** Quiet hours (docs/compliance.md): the prospects' time zone when nothing better is known. */
  DEFAULT_TIME_ZONE: z.string().refine((zone) => isTimeZone(zone), 'DEFAULT_TIME_ZONE must be an IANA time zone such as America/New_York').default('UTC'),
  /**
   * The country of a phone number typed without its country code (a web-chat visitor's "(415) 555-0100", a
   * teammate's contact edit): ISO 3166-1 alpha-2, read by libphonenumber-js. Numbers with + or 00 keep their own.
   */
  DEFAULT_PHONE_COUNTRY: z
    .string()
    .trim()
    .toUpperCase()
    .default('US')
    .refine((code) => isSupportedCountry(code), 'DEFAULT_PHONE_COUNTRY must be a two-letter country code such as US, GB or DE')
    .transform((code) => code as CountryCode),
  /** Whom an opt-out covers when the conversation type does not say (docs/compliance.md): the address, or all channels. */
  OPT_OUT_SCOPE: z.enum(['address', 'all']).default('address'),
  /** Off only in tests that do not test quiet hours (their clock is the real one, which may be at night). */
  QUIET_HOURS_ENFORCED: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
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
  /**
   * Knowledge base semantic search (issue 21, docs/knowledge.md): an embeddings model on the OpenAI-compatible
   * endpoint (e.g. text-embedding-3-small). Unset: lexical full-text search only.
   */
  EMBEDDINGS_MODEL: optionalString,
  /** Vector length asked of text-embedding-3* models (`dimensions`); unset: the model's own (1536 for 3-small). */
  EMBEDDINGS_DIMENSIONS: optionalString.pipe(z.coerce.number<string | undefined>().int().min(1).max(3072).optional()),
  /** Cosine similarity under which a semantic match does not count as relevant to a turn. */
  EMBEDDINGS_MIN_SIMILARITY: z.coerce.number().min(-1).max(1).default(0.3),
  /**
   * Without an LLM the offline demo agent answers web chats and simulated prospects only; a real prospect on a
   * live channel goes to a person (docs/agent.md). `true` lets it answer them too (a sandbox account's tests).
   */
  DEMO_AGENT_ON_LIVE_CHANNELS: z
    .string()
    .optional()
    .transform((v) => v?.trim() === 'true'),
  META_APP_ID: optionalString,
  META_APP_SECRET: optionalString,
  META_VERIFY_TOKEN: optionalString,
  META_GRAPH_URL: url('https://graph.facebook.com'),
  /** Graph API version of every Meta call: the current one (v27.0, 2026-11-04); bump it as docs/channels.md says. */
  META_GRAPH_VERSION: z.string().default('v27.0'),
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
  /** Cal.com API v2 base URL for booking.provider "calcom" (docs/agent.md "Booking"). */
  CALCOM_API_URL: url('https://api.cal.com/v2'),
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
  /** Requests per minute per API key, on every instance together (docs/api.md "Rate limits"). */
  API_KEY_RATE_LIMIT: z.coerce.number().int().positive().default(600),
  /** Failed webhook attempts in a row (no success between) after which an endpoint is disabled (docs/api.md). */
  WEBHOOK_DISABLE_AFTER_FAILURES: z.coerce.number().int().positive().default(50),
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
   * Which X-Forwarded-For hops to believe for the client address (rate limits, logs): unset/false = none (the
   * connection's address), `true` = every hop (the leftmost address; only when the proxy overwrites the
   * header), a number = that many proxies in front, otherwise addresses/CIDRs (or proxy-addr's names
   * loopback, linklocal, uniquelocal), comma-separated. app.ts turns a hop count into a function, since the
   * installed Fastify treats a bare number as "trust nothing".
   */
  TRUST_PROXY: z
    .string()
    .trim()
    .optional()
    .transform((v): boolean | number | string => {
      if (!v || v === 'false' || v === '0') return false;
      if (v === 'true') return true;
      return /^\d+$/.test(v) ? Number(v) : v;
    })
    .refine((v) => typeof v !== 'string' || v.split(',').every((entry) => isTrustedProxyEntry(entry.trim())), {
      message: 'must be true, false, a hop count, or comma-separated addresses/CIDRs (e.g. 10.0.0.0/8,::1)',
    }),
  /** Who may create an account: open (anyone), invite (an ADMIN's invitation link), closed (nobody). */
  REGISTRATION: z.enum(['open', 'invite', 'closed']).default('open'),
  WEB_DIST_DIR: optionalString,
  /** SMTP server for "forgot password" emails (smtp://user:pass@host:587, smtps://… for TLS); unset = admins issue reset links. */
  SMTP_URL: optionalString,
  /** Sender of those emails; default "Sales Agent <no-reply@{PUBLIC_URL's host}>". */
  MAIL_FROM: optionalString,
  /** A request body other than an upload must have arrived within this (slow-body cut-off, docs/security.md). */
  REQUEST_BODY_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** An upload must deliver at least UPLOAD_MIN_BYTES in every window of this length, or it is cut off. */
  UPLOAD_IDLE_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  UPLOAD_MIN_BYTES: z.coerce.number().int().min(1).default(16 * 1024),
  /** Let ADMIN-set provider URLs (an SMS gateway's baseUrl) reach private/loopback addresses (docs/security.md). */
  ALLOW_PRIVATE_URLS: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  /** JSON file with the pricing calculator's unit prices (docs/pricing.md); default: the bundled prices.json. */
  PRICING_FILE: optionalString,
});

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** One TRUST_PROXY list entry: an IPv4/IPv6 address, an address/prefix, or one of proxy-addr's names. */
function isTrustedProxyEntry(entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true;
  const [address, prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (!family || extra !== undefined) return false;
  if (prefix === undefined) return true;
  if (!/^\d+$/.test(prefix)) return family === 4 && isIP(prefix) === 4; // 10.0.0.0/255.0.0.0
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

export type RawEnv = z.infer<typeof envSchema>;

export interface AppConfig extends Omit<RawEnv, 'APP_SECRET' | 'PUBLIC_URL' | 'STORAGE_DIR'> {
  APP_SECRET: string;
  PUBLIC_URL: string;
  STORAGE_DIR: string;
}

export class EnvError extends Error {}

/**
 * The environment the server starts with: `.env` in the working directory (or the file ENV_FILE names, relative
 * to it) under `source`, so a variable set in the environment wins over the file. No `.env` is fine; an ENV_FILE
 * that does not exist stops the start. The file is only read, never copied into process.env.
 */
export function readEnvironment(
  source: Record<string, string | undefined> = process.env,
  cwd = process.cwd(),
): Record<string, string | undefined> {
  const named = source.ENV_FILE?.trim();
  const file = path.resolve(cwd, named || '.env');
  if (!existsSync(file)) {
    if (named) throw new EnvError(`Invalid environment:\n  ENV_FILE: ${file} does not exist`);
    return source;
  }
  let values: Record<string, string>;
  try {
    values = parseEnv(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch (err) {
    throw new EnvError(`Invalid environment:\n  ${file}: ${(err as Error).message}`);
  }
  return { ...values, ...source };
}

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
