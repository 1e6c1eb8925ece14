import OpenAI from 'openai';
import type { AppConfig } from '../../config/env.ts';
import { type AgentErrorRecord } from '../../conversations/agent-errors.ts';
import type { ToolChatMessage, ToolRequest, ToolStep } from '../tools/tool-types.ts';
import { LlmError, type LlmProvider, type LlmRequest, type LlmResult } from './provider.ts';

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * Any OpenAI-compatible chat-completions server through the official SDK. The SDK retries 408/409/429/5xx
 * and connection errors with exponential backoff (honouring `retry-after(-ms)`), LLM_MAX_RETRIES times, each
 * attempt limited to LLM_TIMEOUT_MS. Every call asks for a JSON-schema answer (`response_format.json_schema`,
 * strict) so decisions and drafts are parsed, never guessed from prose.
 */
export function createOpenAiProvider(config: AppConfig): LlmProvider {
  const baseURL = config.OPENAI_BASE_URL ?? DEFAULT_BASE_URL;
  const client = new OpenAI({
    apiKey: config.OPENAI_API_KEY,
    baseURL,
    timeout: config.LLM_TIMEOUT_MS,
    maxRetries: config.LLM_MAX_RETRIES,
  });
  const url = `${baseURL.replace(/\/$/, '')}/chat/completions`;
  // Models that answered "temperature is not supported" once (an OpenAI-compatible server's own naming).
  const refusesTemperature = new Set<string>();

  return {
    kind: 'openai',
    async act(request: ToolRequest): Promise<ToolStep> {
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      try {
        completion = await client.chat.completions.create({
          model: request.model,
          messages: request.messages.map(toSdkMessage),
          tools: request.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } })),
          tool_choice: 'auto',
          parallel_tool_calls: false,
        });
      } catch (err) {
        throw new LlmError(describeSdkError(err, url));
      }
      const calls = completion.choices?.[0]?.message?.tool_calls ?? [];
      const usage = completion.usage;
      return {
        toolCalls: calls.flatMap((c) => (c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [])),
        model: completion.model || request.model,
        usage: usage ? { promptTokens: usage.prompt_tokens ?? 0, completionTokens: usage.completion_tokens ?? 0 } : null,
      };
    },
    async complete<T>(request: LlmRequest<T>): Promise<LlmResult<T>> {
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      const params = {
        model: request.model,
        messages: request.messages,
        response_format: {
          type: 'json_schema' as const,
          json_schema: { name: request.answer.name, strict: true, schema: request.answer.schema },
        },
      };
      const withTemperature = request.temperature !== undefined && takesTemperature(request.model) && !refusesTemperature.has(request.model);
      try {
        try {
          completion = await client.chat.completions.create(withTemperature ? { ...params, temperature: request.temperature } : params);
        } catch (err) {
          // The documented refusal of reasoning models: 400 {param:"temperature", code:"unsupported_value"} (or
          // "unsupported_parameter"). Asked again without it, and not sent to this model again.
          if (!withTemperature || !rejectsTemperature(err)) throw err;
          refusesTemperature.add(request.model);
          completion = await client.chat.completions.create(params);
        }
      } catch (err) {
        throw new LlmError(describeSdkError(err, url));
      }
      const choice = completion.choices?.[0];
      const content = choice?.message?.content;
      const invalid = (message: string, details: string | null) =>
        new LlmError({
          message,
          type: 'invalid_response',
          code: choice?.finish_reason ?? null,
          status: 200,
          method: 'POST',
          url,
          response: (content ?? '').slice(0, 2000) || null,
          details,
        });
      if (choice?.message?.refusal) throw invalid('The model refused to answer.', choice.message.refusal);
      if (!content) throw invalid('The model returned an empty answer.', null);
      let json: unknown;
      try {
        json = JSON.parse(content);
      } catch {
        throw invalid('The model did not answer valid JSON.', null);
      }
      const parsed = request.answer.parse.safeParse(json);
      if (!parsed.success) throw invalid(`The model's answer does not match ${request.answer.name}.`, parsed.error.message);
      const usage = completion.usage;
      return {
        value: parsed.data,
        model: completion.model || request.model,
        usage: usage ? { promptTokens: usage.prompt_tokens ?? 0, completionTokens: usage.completion_tokens ?? 0 } : null,
      };
    },
  };
}

/**
 * Reasoning models (o1/o3/o4-mini, gpt-5 family) take only the default temperature: it is not sent to them
 * (third-party-facts.md "OpenAI REST"; developers.openai.com latest-model guide). Other names send it, and a
 * server that refuses it is handled by `rejectsTemperature`.
 */
export function takesTemperature(model: string): boolean {
  return !/(^|\/)(o\d|gpt-5)/i.test(model);
}

function rejectsTemperature(err: unknown): boolean {
  return err instanceof OpenAI.APIError && err.status === 400 && (err.param === 'temperature' || /'temperature'/.test(err.message));
}

/** Turns an SDK error into the stored error shape; never includes the API key. */
function describeSdkError(err: unknown, url: string): AgentErrorRecord {
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return { message: 'The LLM did not answer in time.', type: 'timeout', code: 'ETIMEDOUT', status: null, method: 'POST', url, response: null, details: err.message };
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return { message: 'The LLM server could not be reached.', type: 'connection_error', code: null, status: null, method: 'POST', url, response: null, details: String(err.cause ?? err.message) };
  }
  if (err instanceof OpenAI.APIError) {
    return {
      message: `The LLM server answered ${err.status ?? 'an error'}.`,
      type: err.type ?? 'api_error',
      code: err.code ?? null,
      status: err.status ?? null,
      method: 'POST',
      url,
      response: err.error ? JSON.stringify(err.error).slice(0, 2000) : null,
      details: err.message,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { message: 'The LLM call failed.', type: 'unknown', code: null, status: null, method: 'POST', url, response: null, details: message };
}

/** Our tool conversation in the chat completions wire shape (assistant `tool_calls`, `tool` results). */
function toSdkMessage(m: ToolChatMessage): OpenAI.Chat.Completions.ChatCompletionMessageParam {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  if (m.role === 'assistant') {
    return {
      role: 'assistant',
      content: m.content,
      ...(m.toolCalls?.length
        ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
        : {}),
    };
  }
  return m;
}
