import type { ApiKeyScope } from '@sales-agent/shared/schemas/integrations';

/**
 * Which operations an API key may call, and with which scope (issue 27, docs/api.md "Scopes"). An operation is
 * `METHOD /path` with the OpenAPI `{param}` form. A listed operation needs ANY of its scopes (an empty list: any
 * key); an operation not listed is not open to API keys at all (API_KEY_NOT_ALLOWED: user and key management,
 * messaging accounts, provider callbacks). The key then acts as its creator: every rule of the session applies.
 */
const READ: ApiKeyScope = 'conversations:read';
const WRITE: ApiKeyScope = 'conversations:write';
const CALLS: ApiKeyScope = 'calls:write';
const PLAYBOOKS: ApiKeyScope = 'playbooks:write';
const ANALYTICS: ApiKeyScope = 'analytics:read';

const OPERATIONS: Record<string, ApiKeyScope[]> = {
  // Who the key acts as.
  'POST /api/user/get-session': [],
  // Conversations and messages.
  'GET /api/conversation/list': [READ],
  'GET /api/conversation/list/events': [READ],
  'GET /api/conversation/{uuid}': [READ],
  'GET /api/conversation/{uuid}/events': [READ],
  'GET /api/conversation/{uuid}/messages/{messageId}/media': [READ],
  'GET /api/conversation/{uuid}/call': [READ],
  'GET /api/conversation/{uuid}/recording': [READ],
  'GET /api/admin/conversation/by-prospect': [READ],
  'GET /api/admin/unanswered-conversations/listt': [READ],
  'GET /api/call-recording/list': [READ],
  'GET /api/call-recording/{id}/stream': [READ],
  'GET /api/call-recording/{id}/download': [READ],
  'GET /api/call-recording/{id}/transcript': [READ],
  'GET /api/conversation-type/listt': [READ, WRITE, CALLS, PLAYBOOKS],
  'GET /api/conversation-type/{id}': [READ, WRITE, CALLS, PLAYBOOKS],
  'POST /api/conversation/new': [WRITE],
  'POST /api/leads': [WRITE],
  'POST /api/conversation/{uuid}/written-message': [WRITE],
  'PATCH /api/conversation/{id}': [WRITE],
  'GET /api/canned-replies': [READ],
  'GET /api/contacts': [READ],
  'PATCH /api/contacts/{id}': [WRITE],
  'POST /api/contacts/{id}/merge': [WRITE],
  'DELETE /api/conversation/{id}': [WRITE],
  'PUT /api/conversation/{uuid}/read': [WRITE],
  'POST /api/conversation/{id}/take-over': [WRITE],
  'POST /api/conversation/{id}/hand-back': [WRITE],
  'DELETE /api/conversation/{id}/messages': [WRITE],
  'PATCH /api/conversation/{id}/message/{messageId}': [WRITE],
  'POST /api/conversation/{uuid}/follow-up': [WRITE],
  'POST /api/conversation/{id}/do-not-contact/clear': [WRITE],
  'POST /api/conversation/{id}/consent': [WRITE],
  'DELETE /api/admin/unanswered-conversations/{id}': [WRITE],
  'PATCH /api/admin/unanswered-conversations/{id}': [WRITE],
  // Calls.
  'POST /api/admin/call/{phone}': [CALLS],
  // Playbooks: conversation types, phases, their CRM pipelines and knowledge.
  'POST /api/admin/conversation-type/create-edit': [PLAYBOOKS],
  'POST /api/admin/conversation-type/{id}/delete': [PLAYBOOKS],
  'POST /api/admin/conversation-type/{id}/duplicate': [PLAYBOOKS],
  'POST /api/admin/conversation-type/{id}/config': [PLAYBOOKS],
  'GET /api/admin/conversation-phase/{typeId}/list': [PLAYBOOKS],
  'POST /api/admin/conversation-phase/create-edit': [PLAYBOOKS],
  'DELETE /api/admin/conversation-phase/{id}': [PLAYBOOKS],
  'GET /api/admin/conversation-type/{id}/pipelines': [PLAYBOOKS],
  'GET /api/admin/conversation-type/{id}/pipeline/contacts': [PLAYBOOKS],
  // Analytics and prices.
  'GET /api/admin/pricing/conversation': [ANALYTICS],
};

/** Whole path families: knowledge belongs to playbooks; analytics screens (any GET under /analytics). */
const PREFIXES: [RegExp, ApiKeyScope[]][] = [
  [/^(GET|POST|DELETE|PATCH|PUT) \/api\/admin\/knowledge(\/|$)/, [PLAYBOOKS]],
  [/^GET \/api\/(admin\/)?analytics(\/|$)/, [ANALYTICS]],
  // Playbook versions, test scenarios and runs (issue 25), custom tools' test button (issue 22).
  [/^(GET|POST|DELETE|PATCH|PUT) \/api\/admin\/conversation-type\/\{[^}]+\}\/(versions|scenarios|test-runs|test-comparisons|publish-status|tools)(\/|$)/, [PLAYBOOKS]],
  [/^GET \/api\/admin\/test-run\/\{[^}]+\}(\/compare\/\{[^}]+\})?$/, [PLAYBOOKS]],
  // Team notes (issue 24) and lead fields a person corrects (issue 22).
  [/^POST \/api\/conversation\/\{[^}]+\}\/notes$/, [WRITE]],
  [/^PUT \/api\/conversation\/\{[^}]+\}\/lead-fields$/, [WRITE]],
];

/** Fastify's `/a/:id` as OpenAPI's `/a/{id}`. */
export const openapiPath = (routeUrl: string) => routeUrl.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The scopes that open an operation to a key (any one of them), or null when keys may not call it. */
export function scopesOf(method: string, path: string): ApiKeyScope[] | null {
  const verb = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  const key = `${verb} ${openapiPath(path)}`;
  const listed = OPERATIONS[key];
  if (listed) return listed;
  for (const [pattern, scopes] of PREFIXES) if (pattern.test(key)) return scopes;
  return null;
}
