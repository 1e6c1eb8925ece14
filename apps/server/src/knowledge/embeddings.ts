import OpenAI from 'openai';
import type { AppConfig } from '../config/env.ts';

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** Inputs per embeddings request (the API takes up to 2048 and 300,000 tokens; passages are ~900 characters). */
export const EMBED_BATCH = 64;
/** A query is embedded within this, else the turn goes on with lexical results (the agent is never held up). */
const QUERY_TIMEOUT_MS = 5_000;

const clients = new WeakMap<AppConfig, OpenAI>();

/** One SDK client per configuration: it retries 408/409/429/5xx with backoff (LLM_MAX_RETRIES times). */
function client(config: AppConfig): OpenAI {
  let found = clients.get(config);
  if (!found) {
    found = new OpenAI({
      apiKey: config.OPENAI_API_KEY ?? 'none',
      baseURL: config.OPENAI_BASE_URL ?? DEFAULT_BASE_URL,
      timeout: config.LLM_TIMEOUT_MS,
      maxRetries: config.LLM_MAX_RETRIES,
    });
    clients.set(config, found);
  }
  return found;
}

/** The configured embeddings model, or null when semantic search is off. */
export function embeddingsModel(config: AppConfig): string | null {
  return config.EMBEDDINGS_MODEL ?? null;
}

/**
 * Embeds texts through `POST /embeddings` (the SDK asks for base64 and decodes it), each vector normalised to
 * length 1 so cosine similarity is a dot product. Answers are mapped by `index`, not by order.
 */
export async function embedTexts(config: AppConfig, model: string, texts: string[], options: { timeoutMs?: number } = {}): Promise<Float32Array[]> {
  const input = texts.map((t) => (t.trim() === '' ? ' ' : t.slice(0, 8000)));
  const response = await client(config).embeddings.create(
    { model, input, ...(config.EMBEDDINGS_DIMENSIONS ? { dimensions: config.EMBEDDINGS_DIMENSIONS } : {}) },
    options.timeoutMs ? { timeout: options.timeoutMs, maxRetries: 0 } : undefined,
  );
  const vectors: Float32Array[] = new Array(texts.length);
  for (const item of response.data) vectors[item.index] = normalise(Float32Array.from(item.embedding));
  if (vectors.some((v) => v === undefined)) throw new Error('The embeddings answer lacks a vector for some input.');
  return vectors;
}

/** The query's vector for retrieval: one quick attempt, no retries (a failure falls back to lexical). */
export async function embedQuery(config: AppConfig, model: string, query: string): Promise<Float32Array> {
  const [vector] = await embedTexts(config, model, [query], { timeoutMs: QUERY_TIMEOUT_MS });
  return vector;
}

export function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}

/** The column's bytes: float32 little-endian (the platforms Node runs on are little-endian). */
export function vectorToBytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

export function bytesToVector(bytes: Uint8Array): Float32Array {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}
