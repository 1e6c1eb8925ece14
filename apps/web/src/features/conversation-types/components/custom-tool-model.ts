import { customToolConfig, type CustomToolConfig } from '@sales-agent/shared/schemas/custom-tools';

/**
 * The custom tool form's values (issue 22) and their translation to and from the config's `tools[i]`. Secret
 * values (header values, the signing secret) arrive masked from the server and are never shown: an empty field
 * keeps the stored value (the masked text goes back, which the server reads as "unchanged").
 */
export interface ToolFormHeader {
  name: string;
  /** A new value typed by the ADMIN; empty keeps `stored`. */
  value: string;
  /** The masked value the server answered for an existing header, if any. */
  stored: string | null;
}

export interface ToolFormValues {
  name: string;
  description: string;
  parameters: string;
  method: CustomToolConfig['method'];
  url: string;
  headers: ToolFormHeader[];
  secret: string;
  storedSecret: string | null;
  timeoutMs: number | '';
  confirm: boolean;
  includeLeadFields: boolean;
  includeTranscript: boolean;
}

export const EMPTY_TOOL_FORM: ToolFormValues = {
  name: '',
  description: '',
  parameters: JSON.stringify({ type: 'object', properties: {}, required: [] }, null, 2),
  method: 'POST',
  url: 'https://',
  headers: [],
  secret: '',
  storedSecret: null,
  timeoutMs: '',
  confirm: false,
  includeLeadFields: false,
  includeTranscript: false,
};

export function toolToForm(tool: CustomToolConfig): ToolFormValues {
  return {
    name: tool.name,
    description: tool.description,
    parameters: JSON.stringify(tool.parameters, null, 2),
    method: tool.method,
    url: tool.url,
    headers: Object.entries(tool.headers ?? {}).map(([name, stored]) => ({ name, value: '', stored })),
    secret: '',
    storedSecret: tool.secret ?? null,
    timeoutMs: tool.timeoutMs ?? '',
    confirm: tool.confirm === true || tool.requiresConfirmation === true,
    includeLeadFields: tool.includeLeadFields === true,
    includeTranscript: tool.includeTranscript === true,
  };
}

/** The tool the form describes, or the sentence saying what is wrong (checked like the server's validation). */
export function formToTool(form: ToolFormValues, previous?: CustomToolConfig): { tool: CustomToolConfig } | { problem: string } {
  let parameters: unknown;
  try {
    parameters = JSON.parse(form.parameters);
  } catch (err) {
    return { problem: `Parameters are not valid JSON: ${(err as Error).message}` };
  }
  if (!parameters || typeof parameters !== 'object' || Array.isArray(parameters) || (parameters as { type?: unknown }).type !== 'object') {
    return { problem: 'Parameters must be a JSON Schema object with "type": "object".' };
  }
  const headers: Record<string, string> = {};
  for (const h of form.headers) {
    const name = h.name.trim();
    if (!name) continue;
    const value = h.value || h.stored;
    if (!value) return { problem: `Header ${name} needs a value.` };
    headers[name] = value;
  }
  // Keys the form does not edit (e.g. written in the JSON editor) are kept as they were.
  const { requiresConfirmation: _old, ...kept } = (previous ?? {}) as CustomToolConfig;
  const candidate: Record<string, unknown> = {
    ...kept,
    name: form.name.trim(),
    description: form.description.trim(),
    parameters,
    method: form.method,
    url: form.url.trim(),
    headers: Object.keys(headers).length > 0 ? headers : undefined,
    secret: form.secret || form.storedSecret || undefined,
    timeoutMs: form.timeoutMs === '' ? undefined : form.timeoutMs,
    confirm: form.confirm || undefined,
    includeLeadFields: form.includeLeadFields || undefined,
    includeTranscript: form.includeTranscript || undefined,
  };
  for (const key of Object.keys(candidate)) if (candidate[key] === undefined) delete candidate[key];
  const parsed = customToolConfig.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { problem: `${issue.path.join('.') || 'Tool'}: ${issue.message}` };
  }
  return { tool: candidate as CustomToolConfig };
}

/**
 * The config text with `tool` written at `index` (null: added at the end), pretty-printed; or the sentence
 * saying why not (the text is not a JSON object, or another tool has that name).
 */
export function configWithTool(configText: string, index: number | null, tool: CustomToolConfig): { text: string } | { problem: string } {
  let config: unknown;
  try {
    config = JSON.parse(configText || '{}');
  } catch {
    return { problem: 'The configuration above is not valid JSON; fix it before saving a tool.' };
  }
  if (!config || typeof config !== 'object' || Array.isArray(config)) return { problem: 'The configuration must be a JSON object to hold tools.' };
  const current = (config as { tools?: unknown }).tools;
  const tools: unknown[] = Array.isArray(current) ? [...current] : [];
  if (tools.some((t, i) => i !== index && (t as { name?: unknown })?.name === tool.name)) return { problem: `Another tool is already named ${tool.name}.` };
  if (index === null) tools.push(tool);
  else tools[index] = tool;
  return { text: JSON.stringify({ ...config, tools }, null, 2) };
}

/** The tools of the config text (empty when it does not parse). */
export function toolsOfText(configText: string): CustomToolConfig[] {
  try {
    const tools = (JSON.parse(configText || '{}') as { tools?: unknown }).tools;
    return Array.isArray(tools) ? (tools as CustomToolConfig[]) : [];
  } catch {
    return [];
  }
}
