import { z } from 'zod';

/** Tool names the agent has built in; a custom tool may not take one. */
export const BUILT_IN_TOOL_NAMES = ['check_availability', 'book_meeting', 'reschedule_meeting', 'cancel_meeting', 'update_lead'] as const;

/**
 * A custom HTTP tool of a conversation type (issue 22 item 3), in the config's `"tools": [...]`: the model sees
 * `name`, `description` and `parameters` (a JSON Schema object, compiled on save); the server calls `method url`
 * (`{param}` placeholders filled from the arguments, URL-encoded) with `headers` (every value a secret: sealed
 * when stored, masked in answers) and, with `secret`, an `X-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret,
 * t + "." + raw body)>` header. `confirm`: the call runs only after the prospect's yes.
 */
export const customToolConfig = z.looseObject({
  name: z
    .string()
    .regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, _ or -')
    .refine((n) => !(BUILT_IN_TOOL_NAMES as readonly string[]).includes(n), { message: 'is the name of a built-in tool' }),
  description: z.string().trim().min(1, 'must not be empty').max(1000),
  parameters: z.looseObject({ type: z.literal('object', { error: 'must be a JSON Schema with "type": "object"' }) }),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], { error: 'must be GET, POST, PUT, PATCH or DELETE' }),
  url: z
    .string()
    .trim()
    .max(2000)
    .regex(/^https?:\/\/[^\s]+$/i, 'must be an http or https URL'),
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,100}$/, 'must be a header name'), z.string().max(4000)).optional(),
  secret: z.string().min(1).max(4000).optional(),
  timeoutMs: z.number().int().min(500).max(30_000).optional(),
  /** The call waits for the prospect's yes (the agent describes it first); `requiresConfirmation` is the older name. */
  confirm: z.boolean().optional(),
  requiresConfirmation: z.boolean().optional(),
  /**
   * Least data (issue 22, docs/agent.md): a tool gets the model's arguments only. `includeLeadFields` adds the
   * prospect's lead fields, `includeTranscript` the recent messages, as `context` in the JSON body (POST/PUT/PATCH).
   */
  includeLeadFields: z.boolean().optional(),
  includeTranscript: z.boolean().optional(),
});
export type CustomToolConfig = z.infer<typeof customToolConfig>;

export const customToolsConfig = z
  .array(customToolConfig)
  .max(15, 'at most 15 tools')
  .refine((tools) => new Set(tools.map((t) => t.name)).size === tools.length, { message: 'tool names must be unique' });

/** The config paths of a tools list's secrets (sealed when stored, masked in answers): `tools.<i>.secret`, `tools.<i>.headers.<name>`. */
export function customToolSecretPaths(config: unknown): string[] {
  const tools = (config as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool: unknown, i) => {
    if (!tool || typeof tool !== 'object') return [];
    const t = tool as { secret?: unknown; headers?: unknown };
    const headers = t.headers && typeof t.headers === 'object' && !Array.isArray(t.headers) ? Object.keys(t.headers) : [];
    return [...headers.map((h) => `tools.${i}.headers.${h}`), ...(typeof t.secret === 'string' ? [`tools.${i}.secret`] : [])];
  });
}

/** POST /api/admin/conversation-type/{id}/tools/{name}/test: sample arguments for the "Test tool" button. */
export const testToolBody = z.object({ arguments: z.record(z.string(), z.unknown()).default({}) });
export const testToolResponse = z.object({ ok: z.boolean(), status: z.number().nullable(), result: z.string(), durationMs: z.number() });
