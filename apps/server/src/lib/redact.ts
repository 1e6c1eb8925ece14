/**
 * The one redaction of secrets in text (docs/security.md "Logs"). Every log line passes through it (the
 * logger's last step, plugins/logging.ts) and so does every error the product stores: the unanswered
 * monitor's agent errors, the outbox's last error, a job's last error. It removes
 * - the exact values of secrets the process knows (its configuration's keys, and those registered by callers),
 * - credentials by their shape, wherever they appear, including inside a provider's error message: Meta and
 *   Instagram tokens (`EAA…`, `IG…`), OpenAI-style keys (`sk-…`), GoHighLevel private integration tokens
 *   (`pit-…`), JWTs, Twilio auth tokens (32 hex digits), AWS/Google/GitHub/Slack/Stripe keys,
 * - values after a secret's name: `access_token=…`, `"apiKey":"…"`, `password: …`, `Bearer …`/`Basic …`,
 *   a URL's `user:password@`,
 * - what follows a provider's "Malformed access token" / "Incorrect API key provided:".
 * The replacement never contains a quote or a backslash, so a JSON line stays JSON.
 */
export const REDACTED = '[redacted]';

/** Names whose value is a secret (compared case-insensitively; `_`/`-` optional between words). */
const SECRET_NAME =
  '(?:access[_-]?token|input[_-]?token|refresh[_-]?token|id[_-]?token|fb[_-]?exchange[_-]?token|auth[_-]?token|session[_-]?token|' +
  'client[_-]?secret|app[_-]?secret|appsecret[_-]?proof|api[_-]?key|signing[_-]?key|secret[_-]?key|private[_-]?key|' +
  'secret|token|password|passwd|pwd|new[_-]?password|current[_-]?password|hub\\.verify[_-]?token|verify[_-]?token)';

const PATTERNS: [RegExp, string][] = [
  // Provider messages that quote the credential they refused.
  [/\b(Malformed access token|Invalid OAuth access token|Incorrect API key provided:?|Invalid API key provided:?|Invalid token:?)(\s+)[^\s"'\\,]+/gi, `$1$2${REDACTED}`],
  // Authorization header values.
  [/\b(Bearer|Basic|Digest)\s+[A-Za-z0-9._~+/=-]{6,}/g, `$1 ${REDACTED}`],
  // "name":"value" (JSON, possibly escaped once or more inside JSON strings) — string values only, so JSON stays valid.
  [new RegExp(`((?<![A-Za-z0-9])${SECRET_NAME}\\\\*["']\\s*:\\s*\\\\*["'])(?!\\[redacted\\])[^"'\\\\]+`, 'gi'), `$1${REDACTED}`],
  // name=value (query strings, form bodies).
  [new RegExp(`((?<![A-Za-z0-9])${SECRET_NAME}=)(?!\\[redacted\\])[^\\s&"'\\\\#,;)}]+`, 'gi'), `$1${REDACTED}`],
  // name: value (free text, printed objects) when the value looks like a credential (8+ characters, a digit),
  // so "access token: Session has expired" stays readable.
  [new RegExp(`((?<![A-Za-z0-9])${SECRET_NAME}:\\s*'?)(?=[A-Za-z0-9._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{8,}`, 'gi'), `$1${REDACTED}`],
  // A URL's user:password@.
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@"'\\]+:)[^\s@/"'\\]+@/gi, `$1${REDACTED}@`],
  // Shapes of credentials, wherever they are.
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, REDACTED], // JWT
  [/\bEAA[A-Za-z0-9]{16,}/g, REDACTED], // Meta user/page/system tokens
  [/\bIG[A-Z]{2}[A-Za-z0-9_-]{16,}/g, REDACTED], // Instagram Login tokens (IGQV…, IGAA…)
  [/\bsk-[A-Za-z0-9_*.-]{8,}/g, REDACTED], // OpenAI (sk-…, sk-proj-…), Anthropic (sk-ant-…)
  [/\b[rsp]k_(?:live|test)_[A-Za-z0-9]{8,}/g, REDACTED], // Stripe
  [/\bpit-[A-Za-z0-9-]{8,}/g, REDACTED], // GoHighLevel private integration token
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, REDACTED], // GitHub
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, REDACTED], // Slack
  [/\bAKIA[0-9A-Z]{16}\b/g, REDACTED], // AWS access key id
  [/\bAIza[0-9A-Za-z_-]{30,}/g, REDACTED], // Google API key
  [/\b[0-9a-f]{32}\b/g, REDACTED], // Twilio auth token (and any other bare 128-bit hex secret)
];

/** Exact secret values known to this process (configuration keys; registered once at start). */
const known = new Set<string>();

/** Adds secret values to redact wherever they appear (ignored when shorter than 8 characters). */
export function registerSecrets(...values: (string | null | undefined)[]): void {
  for (const value of values) {
    if (!value || value.length < 8) continue;
    known.add(value);
    // Basic-auth encodings of login:password pairs.
    if (value.includes(':')) known.add(Buffer.from(value).toString('base64'));
  }
}

/** The text without any secret: exact known values (and `extra`) first, then every shape above. */
export function redactText(text: string, extra: readonly (string | null | undefined)[] = []): string {
  let out = text;
  for (const secret of extra) if (secret && secret.length >= 4) out = out.split(secret).join(REDACTED);
  for (const secret of known) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** Every string inside a value (objects, arrays) redacted; other values unchanged. */
export function redactDeep<T>(value: T, extra: readonly (string | null | undefined)[] = [], depth = 0): T {
  if (typeof value === 'string') return redactText(value, extra) as T;
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, extra, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = redactDeep(v, extra, depth + 1);
  return out as T;
}

/** The configuration's secrets (keys, passwords, the database URL's password) registered for redaction. */
export function registerConfigSecrets(config: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(config)) {
    if (typeof value !== 'string') continue;
    if (/(SECRET|KEY|TOKEN|PASSWORD)$/.test(name) && !/_KEY_ID$/.test(name)) registerSecrets(value);
    if (name === 'DATABASE_URL') {
      try {
        const password = decodeURIComponent(new URL(value).password);
        registerSecrets(password);
      } catch {
        /* not a URL */
      }
    }
  }
}
