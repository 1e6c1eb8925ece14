import { Counter, Histogram, Registry } from 'prom-client';

/**
 * Process-wide metrics recorded where the work happens (LLM calls), outside any request. The per-app metrics
 * (HTTP, jobs, outbox, live connections) live in plugins/metrics.ts; GET /api/metrics serves both.
 */
export const processRegistry = new Registry();

const llmLatency = new Histogram({
  name: 'sales_agent_llm_request_duration_seconds',
  help: 'Duration of LLM calls, by purpose, model and outcome.',
  labelNames: ['purpose', 'model', 'outcome'] as const,
  buckets: [0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
  registers: [processRegistry],
});
const llmTokens = new Counter({
  name: 'sales_agent_llm_tokens_total',
  help: 'Tokens used by LLM calls, by purpose, model and kind (prompt or completion).',
  labelNames: ['purpose', 'model', 'kind'] as const,
  registers: [processRegistry],
});
const llmCost = new Counter({
  name: 'sales_agent_llm_cost_usd_total',
  help: 'Cost of LLM calls in US dollars (the pricing table of agent/llm/prices.ts), by purpose and model.',
  labelNames: ['purpose', 'model'] as const,
  registers: [processRegistry],
});

export interface LlmCallRecord {
  purpose: string;
  model: string;
  seconds: number;
  outcome: 'ok' | 'error';
  promptTokens?: number;
  completionTokens?: number;
  costUsd?: number;
}

/** Records one LLM call; never throws (metrics must not break a turn). */
export function recordLlmCall(call: LlmCallRecord): void {
  try {
    llmLatency.observe({ purpose: call.purpose, model: call.model, outcome: call.outcome }, call.seconds);
    if (call.promptTokens) llmTokens.inc({ purpose: call.purpose, model: call.model, kind: 'prompt' }, call.promptTokens);
    if (call.completionTokens) llmTokens.inc({ purpose: call.purpose, model: call.model, kind: 'completion' }, call.completionTokens);
    if (call.costUsd) llmCost.inc({ purpose: call.purpose, model: call.model }, call.costUsd);
  } catch {
    /* a metric with bad labels is not worth failing the caller */
  }
}

const toolCalls = new Histogram({
  name: 'sales_agent_tool_call_duration_seconds',
  help: 'Duration of tools the agent called (booking and custom tools), by tool and outcome.',
  labelNames: ['tool', 'outcome'] as const,
  buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
  registers: [processRegistry],
});

/** One tool call of an agent turn (agent/tools/tool-step.ts). */
export function recordToolCall(tool: string, seconds: number, outcome: 'ok' | 'error' | 'timeout'): void {
  toolCalls.observe({ tool, outcome }, seconds);
}
