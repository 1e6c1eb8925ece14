import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One chat-completions request as the fake received it. */
export interface FakeChatRequest {
  model: string;
  temperature?: number;
  messages: { role: string; content: string }[];
  /** The json_schema name of response_format (e.g. `transition_decision`), or null for a plain request. */
  schemaName: string | null;
  /** The whole response_format as sent (type json_schema, strict, schema). */
  responseFormat?: { type: string; json_schema?: { name: string; strict?: boolean; schema?: Record<string, unknown> } };
  /** The function names of `tools`, for a tool-step request (answered under the name "tools"). */
  tools: string[];
  authorization: string | undefined;
}

/** What the fake answers: a JSON answer (sent as the message content), an HTTP error, or no answer at all. */
export type FakeReply =
  | { json: unknown; usage?: { prompt_tokens: number; completion_tokens: number } }
  | { content: string }
  /** A tool-calling answer (chat completions `tool_calls`, finish_reason "tool_calls"); [] asks for none. */
  | { toolCalls: { name: string; arguments: unknown }[] }
  | { status: number; body?: unknown }
  | { hang: true };

export type FakeHandler = (request: FakeChatRequest) => FakeReply | Promise<FakeReply>;

/** One embeddings request as the fake received it (`POST /v1/embeddings`). */
export interface FakeEmbeddingsRequest {
  model: string;
  input: string[];
  dimensions?: number;
  encodingFormat?: string;
}

/**
 * Words of one meaning share one axis of the fake's vectors, so a question and a passage with no word in
 * common (lexical search misses it) are still near: a tiny stand-in for a real embeddings model.
 */
const FAKE_MEANINGS: string[][] = [
  ['cost', 'costs', 'price', 'prices', 'pricing', 'fee', 'fees', 'charge', 'expensive', 'cheap', 'pay', 'euros', 'dollars'],
  ['refund', 'refunds', 'money-back', 'reimburse', 'reimbursement', 'return', 'returns'],
  ['hours', 'open', 'opening', 'closed', 'schedule', 'weekday', 'weekend'],
  ['deliver', 'delivery', 'ship', 'shipping', 'courier', 'dispatch', 'parcel'],
  ['install', 'installation', 'setup', 'fitting', 'technician'],
  ['warranty', 'guarantee', 'guaranteed', 'repair', 'broken'],
];
const FAKE_STOPWORDS = new Set('a an and are as at be by do does for from how i in is it me much my of on or our the this to we what when where which who will with you your can'.split(' '));
const FAKE_DIMS = 64;

/** The fake's deterministic vector for a text: one axis per meaning above, other words hashed onto the rest. */
export function fakeEmbedding(text: string, dims = FAKE_DIMS): number[] {
  const vector = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().match(/[a-z][a-z-]*/g) ?? []) {
    if (FAKE_STOPWORDS.has(word)) continue;
    const meaning = FAKE_MEANINGS.findIndex((words) => words.includes(word));
    let axis = meaning;
    if (meaning < 0) {
      let hash = 0;
      for (const ch of word) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
      axis = FAKE_MEANINGS.length + (hash % (dims - FAKE_MEANINGS.length));
    }
    vector[axis] += 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((v) => v / norm);
}

/** Defaults per schema name: engage, stay in the phase, a plain reply, guard passes, rating 7. */
const DEFAULT_ANSWERS: Record<string, unknown> = {
  trigger_decision: { engage: true, reason: 'fits' },
  transition_decision: { advance: false, reason: 'not yet' },
  draft_reply: { reply: 'Fake reply', needsHuman: false, reason: '' },
  guard_check: { pass: true, reason: '' },
  conversation_rating: { rating: 7, reason: 'fine' },
  follow_up: { reply: 'Fake follow-up' },
};
/** A tool step calls no tool unless a test says so. */
const DEFAULT_TOOL_STEP: FakeReply = { toolCalls: [] };

/**
 * A loopback OpenAI-compatible server speaking the real wire format: `POST /v1/chat/completions` answers a
 * `chat.completion` object with `usage`; errors use OpenAI's `{ error: { message, type, code } }` body and
 * `retry-after-ms: 0` so the SDK's retries do not slow tests down. Tests program answers per json_schema
 * name (`on('transition_decision', …)`), once or for good, and read the recorded requests.
 */
export class OpenAiFake {
  readonly requests: FakeChatRequest[] = [];
  /** Embeddings requests; answers are `fakeEmbedding(input)`, errors programmed with `once('embeddings', …)`. */
  readonly embeddingRequests: FakeEmbeddingsRequest[] = [];
  /** Milliseconds every answer waits (to widen race windows in concurrency tests). */
  latencyMs = 0;
  /** Per-call think time instead of latencyMs (e.g. a slow tail for benchmarks); null = latencyMs. */
  delay: ((request: FakeChatRequest) => number) | null = null;
  /**
   * Models that refuse a temperature other than 1 as OpenAI's reasoning models do (400, param "temperature",
   * code "unsupported_value"; developers.openai.com, reasoning models / latest-model guide).
   */
  rejectsTemperature: RegExp | null = null;
  private readonly handlers = new Map<string, FakeHandler>();
  private readonly queued = new Map<string, FakeHandler[]>();
  private readonly hanging = new Set<ServerResponse>();
  private server: Server | null = null;
  private sequence = 0;

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this.baseUrl;
  }

  get baseUrl(): string {
    const { port } = this.server!.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1`;
  }

  /** The environment that points the app at this fake. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return { OPENAI_API_KEY: 'sk-test-fake', OPENAI_BASE_URL: this.baseUrl, LLM_MODEL: 'gpt-4o-mini', ...extra };
  }

  /** Answers every request with this schema name (`'*'` for all) from now on. */
  on(schemaName: string, reply: FakeReply | FakeHandler): this {
    this.handlers.set(schemaName, typeof reply === 'function' ? reply : () => reply);
    return this;
  }

  /** Answers the next request with this schema name once, before the standing handler. */
  once(schemaName: string, reply: FakeReply | FakeHandler): this {
    const list = this.queued.get(schemaName) ?? [];
    list.push(typeof reply === 'function' ? reply : () => reply);
    this.queued.set(schemaName, list);
    return this;
  }

  reset(): void {
    this.handlers.clear();
    this.queued.clear();
    this.requests.length = 0;
    this.embeddingRequests.length = 0;
    this.latencyMs = 0;
    this.delay = null;
    this.rejectsTemperature = null;
  }

  count(schemaName: string): number {
    return this.requests.filter((r) => r.schemaName === schemaName).length;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method === 'POST' && req.url?.endsWith('/embeddings')) return this.embeddings(res, Buffer.concat(chunks).toString('utf8'));
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      return this.send(res, 404, { error: { message: `Unknown path ${req.url}`, type: 'invalid_request_error', code: 'unknown_url' } });
    }
    let body: {
      model: string;
      temperature?: number;
      messages: FakeChatRequest['messages'];
      response_format?: FakeChatRequest['responseFormat'];
      tools?: { type: string; function: { name: string } }[];
    };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return this.send(res, 400, { error: { message: 'Invalid JSON body', type: 'invalid_request_error', code: null } });
    }
    const request: FakeChatRequest = {
      model: body.model,
      temperature: body.temperature,
      messages: body.messages,
      schemaName: body.response_format?.json_schema?.name ?? (body.tools?.length ? 'tools' : null),
      responseFormat: body.response_format,
      tools: (body.tools ?? []).map((t) => t.function.name),
      authorization: req.headers.authorization,
    };
    this.requests.push(request);
    if (this.rejectsTemperature?.test(body.model) && body.temperature !== undefined && body.temperature !== 1) {
      return this.send(res, 400, {
        error: {
          message: `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`,
          type: 'invalid_request_error',
          param: 'temperature',
          code: 'unsupported_value',
        },
      });
    }
    const name = request.schemaName ?? 'plain';
    const handler = this.queued.get(name)?.shift() ?? this.handlers.get(name) ?? this.handlers.get('*');
    const reply: FakeReply = handler ? await handler(request) : name === 'tools' ? DEFAULT_TOOL_STEP : { json: DEFAULT_ANSWERS[name] ?? {} };
    const wait = this.delay ? this.delay(request) : this.latencyMs;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));

    if ('hang' in reply) {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    if ('status' in reply) {
      return this.send(res, reply.status, reply.body ?? { error: { message: `Fake error ${reply.status}`, type: reply.status === 429 ? 'rate_limit_exceeded' : 'server_error', code: null } });
    }
    if ('toolCalls' in reply) {
      this.sequence += 1;
      const toolCalls = reply.toolCalls.map((c, i) => ({
        id: `call_fake_${this.sequence}_${i}`,
        type: 'function',
        function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
      }));
      return this.send(res, 200, {
        id: `chatcmpl-fake-${this.sequence}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: `${body.model}-2024-07-18`,
        choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }, logprobs: null, finish_reason: toolCalls.length ? 'tool_calls' : 'stop' }],
        usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 },
      });
    }
    const content = 'json' in reply ? JSON.stringify(reply.json) : reply.content;
    const usage = ('json' in reply && reply.usage) || { prompt_tokens: 100, completion_tokens: 20 };
    this.sequence += 1;
    this.send(res, 200, {
      id: `chatcmpl-fake-${this.sequence}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: `${body.model}-2024-07-18`,
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    });
  }

  /**
   * `POST /v1/embeddings {model, input: string | string[], dimensions?, encoding_format?}` →
   * `{object:"list", data:[{object:"embedding", index, embedding}], model, usage}`; with encoding_format
   * "base64" (what the Node SDK asks for) each embedding is base64 of float32 little-endian. Empty strings are
   * refused with a 400, as OpenAI does. A reply queued with `once('embeddings', {status})` answers that error.
   */
  private async embeddings(res: ServerResponse, raw: string): Promise<void> {
    let body: { model: string; input: string | string[]; dimensions?: number; encoding_format?: string };
    try {
      body = JSON.parse(raw);
    } catch {
      return this.send(res, 400, { error: { message: 'Invalid JSON body', type: 'invalid_request_error', code: null } });
    }
    const input = Array.isArray(body.input) ? body.input : [body.input];
    this.embeddingRequests.push({ model: body.model, input, dimensions: body.dimensions, encodingFormat: body.encoding_format });
    const handler = this.queued.get('embeddings')?.shift() ?? this.handlers.get('embeddings');
    const reply = handler ? await handler({ model: body.model, messages: [], schemaName: 'embeddings', tools: [], authorization: undefined }) : null;
    if (reply && 'hang' in reply) {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    if (reply && 'status' in reply) {
      return this.send(res, reply.status, reply.body ?? { error: { message: `Fake error ${reply.status}`, type: reply.status === 429 ? 'rate_limit_exceeded' : 'server_error', code: null } });
    }
    if (input.some((text) => typeof text !== 'string' || text === '')) {
      return this.send(res, 400, { error: { message: "'$.input' is invalid. Please check the API reference.", type: 'invalid_request_error', param: null, code: null } });
    }
    const data = input.map((text, index) => {
      const vector = fakeEmbedding(text, body.dimensions ?? FAKE_DIMS);
      const embedding = body.encoding_format === 'base64' ? Buffer.from(Float32Array.from(vector).buffer).toString('base64') : vector;
      return { object: 'embedding', index, embedding };
    });
    const tokens = input.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
    this.send(res, 200, { object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
  }

  private send(res: ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'retry-after-ms': '0', 'x-request-id': `req_fake_${Date.now()}` });
    res.end(text);
  }
}
