import { createHmac } from 'node:crypto';
import type { CustomToolConfig } from '@sales-agent/shared/schemas/custom-tools';
import type { AppContext } from '../../context.ts';
import { jsonSchemaMismatch } from '../../lib/json-schema.ts';
import { outboundUrlProblem } from '../../lib/outbound-url.ts';
import { openSealedValue } from '../../lib/sealed-value.ts';
import { fillUrlTemplate } from '../../lib/url-template.ts';
import type { ToolDefinition } from './tool-types.ts';

/** A custom tool's answer is read up to this size; a larger one fails the call (the model gets no flood). */
export const CUSTOM_TOOL_MAX_RESPONSE_BYTES = 16 * 1024;
export const CUSTOM_TOOL_DEFAULT_TIMEOUT_MS = 10_000;

/** What the model sees of a custom tool: its name, description and parameters (never its URL or headers). */
export function customToolDefinition(tool: CustomToolConfig): ToolDefinition {
  return { name: tool.name, description: tool.description, parameters: tool.parameters };
}

/** HMAC-SHA256 of `t + "." + body` with the tool's secret: `X-Signature: t=<unix s>,v1=<hex>`. */
export function signatureHeader(secret: string, body: string, nowMs = Date.now()): string {
  const t = Math.floor(nowMs / 1000);
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/** What a tool may ask to be sent besides its arguments (includeLeadFields, includeTranscript). */
export interface ToolCallContext {
  leadFields: Record<string, unknown>;
  /** The latest messages, oldest first. */
  transcript: { role: 'prospect' | 'agent'; text: string }[];
}

export class CustomToolError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/**
 * Calls a team's HTTP tool with the model's arguments: checked against its JSON Schema, `{param}`s filled into
 * the URL (the rest as the JSON body, or the query of a GET/DELETE), the same private-address rule as every
 * URL an ADMIN typed, no redirects followed, its own timeout, the answer capped. Fails with a sentence the
 * model can pass on; answers the parsed JSON (or text) and the HTTP status.
 */
export async function callCustomTool(
  ctx: AppContext,
  tool: CustomToolConfig,
  args: Record<string, unknown>,
  context?: () => Promise<ToolCallContext>,
): Promise<{ status: number; value: unknown }> {
  const mismatch = jsonSchemaMismatch(tool.parameters, args);
  if (mismatch) throw new CustomToolError(`invalid arguments: ${mismatch}`);
  const { url: filled, used } = fillUrlTemplate(tool.url, args);
  const rest = Object.fromEntries(Object.entries(args).filter(([k]) => !used.has(k)));
  const hasBody = tool.method !== 'GET' && tool.method !== 'DELETE';
  const url = new URL(filled);
  if (!hasBody) for (const [k, v] of Object.entries(rest)) url.searchParams.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  const problem = await outboundUrlProblem(url.toString(), { allowPrivate: ctx.config.ALLOW_PRIVATE_URLS });
  if (problem) throw new CustomToolError(problem);

  // Least data: the conversation's context only when the tool asks for it (and has a body to carry it).
  const asked = hasBody && context && (tool.includeLeadFields || tool.includeTranscript) ? await context() : null;
  const extra = asked
    ? { context: { ...(tool.includeLeadFields ? { leadFields: asked.leadFields } : {}), ...(tool.includeTranscript ? { transcript: asked.transcript } : {}) } }
    : {};
  const body = hasBody ? JSON.stringify({ ...rest, ...extra }) : '';
  const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': 'sales-agent-tool/1' };
  for (const [name, stored] of Object.entries(tool.headers ?? {})) {
    const value = openSealedValue(ctx.secrets, stored);
    if (value === null) throw new CustomToolError(`the stored value of header ${name} can no longer be read; enter it again in the config`);
    headers[name] = value;
  }
  if (hasBody) headers['Content-Type'] = 'application/json';
  if (tool.secret) {
    const secret = openSealedValue(ctx.secrets, tool.secret);
    if (secret === null) throw new CustomToolError('the stored signing secret can no longer be read; enter it again in the config');
    headers['X-Signature'] = signatureHeader(secret, body);
  }

  const timeoutMs = tool.timeoutMs ?? CUSTOM_TOOL_DEFAULT_TIMEOUT_MS;
  let response: Response;
  try {
    response = await fetch(url, { method: tool.method, headers, body: hasBody ? body : undefined, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    throw new CustomToolError(timedOut ? `${tool.name} did not answer within ${timeoutMs / 1000} s` : `${tool.name} could not be reached`);
  }
  const text = await readCapped(response, tool.name);
  if (response.status >= 300 && response.status < 400) throw new CustomToolError(`${tool.name} answered a redirect (${response.status}); redirects are not followed`, response.status);
  if (!response.ok) throw new CustomToolError(`${tool.name} answered HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`, response.status);
  let value: unknown = text;
  try {
    value = text ? JSON.parse(text) : null;
  } catch {
    // Plain text is passed on as text.
  }
  return { status: response.status, value };
}

async function readCapped(response: Response, name: string): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > CUSTOM_TOOL_MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw new CustomToolError(`${name} answered more than ${CUSTOM_TOOL_MAX_RESPONSE_BYTES / 1024} KB`, response.status);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
