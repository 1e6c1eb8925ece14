import type { AppConfig } from '../config/env.ts';
import { SESSION_COOKIE } from './auth.ts';
import { scopesOf } from './api-key-scopes.ts';

/**
 * The API description an integrator generates a client from (`/api/docs/json`, docs/operations.md). It passes
 * Redocly's `recommended` rules with no errors (openapi.test.ts keeps it so): every operation has a summary and
 * an operationId, the session cookie is a declared security scheme, public operations say so, and the server
 * is PUBLIC_URL. Routes may set their own `summary`; the table below fills in the rest, and a route nobody
 * described gets a summary made from its method and path.
 */
export function openapiBase(config: Pick<AppConfig, 'PUBLIC_URL'>) {
  return {
    openapi: '3.0.3',
    info: {
      title: 'Sales Agent API',
      version: '0.1.0',
      description:
        'The API of the Sales Agent web app. Sign in with POST /api/user/login: the answer sets the session cookie ' +
        `\`${SESSION_COOKIE}\`, which every operation marked with sessionCookie needs. Errors answer \`{ error, code }\`.`,
    },
    servers: [{ url: config.PUBLIC_URL, description: 'This instance (PUBLIC_URL)' }],
    components: {
      securitySchemes: {
        sessionCookie: {
          type: 'apiKey' as const,
          in: 'cookie' as const,
          name: SESSION_COOKIE,
          description: 'The session cookie set by POST /api/user/login or /api/user/register (httpOnly, 30 days).',
        },
        apiKey: {
          type: 'http' as const,
          scheme: 'bearer',
          description:
            'An API key (`Authorization: Bearer sak_…`) an ADMIN created under Admin → Integrations. It acts as its creator, ' +
            'narrowed to its scopes: each operation open to keys lists the scopes that allow it (any one) in `x-api-key-scopes`. ' +
            'See docs/api.md.',
        },
      },
    },
    security: [{ sessionCookie: [] }],
  };
}

/** Operations that need no session. Provider callbacks are authenticated by their signature instead. */
const PUBLIC = new Set([
  'GET /api/health',
  'GET /api/health/ready',
  'POST /api/user/login',
  'POST /api/user/register',
  'POST /api/user/forgot-password',
  'GET /api/app-config',
  'GET /api/meta-api/config',
  'POST /api/meta-api/link-facebook',
  'POST /api/conversation/new',
  'GET /api/user/registration',
]);
/** Provider webhooks and callbacks: no session, a provider signature or verify token (docs/channels.md). */
const PROVIDER_CALLBACK = /^(GET|POST) \/api\/(meta-api\/webhook|twilio\/|sms-gateway\/webhook|voice\/)/;
/** Operations that work without a session and use it when present (web chats, session probes). */
const OPTIONAL = new Set([
  'POST /api/user/logout',
  'POST /api/user/set-password',
  'POST /api/meta-api/meta-login-register-redirect',
  'GET /api/conversation-type/listt',
  'GET /api/meta-api/connect-url',
  'GET /api/conversation/{uuid}',
  'GET /api/conversation/{uuid}/events',
  'POST /api/conversation/{uuid}/written-message',
  'GET /api/conversation/{uuid}/call',
  'GET /api/conversation/{uuid}/recording',
]);

export type Access = 'public' | 'provider' | 'optional' | 'session';

export function accessOf(method: string, path: string): Access {
  const key = `${method.toUpperCase()} ${path}`;
  if (PUBLIC.has(key)) return 'public';
  if (PROVIDER_CALLBACK.test(key)) return 'provider';
  if (OPTIONAL.has(key)) return 'optional';
  return 'session';
}

const SUMMARIES: Record<string, string> = {
  'POST /api/user/login': 'Sign in with email and password',
  'POST /api/user/register': 'Register a new account and sign in',
  'POST /api/user/set-password': 'Set a password with a one-time link token, or a first password with your own session',
  'POST /api/user/forgot-password': 'Email a link to set a new password (answers the same for every email)',
  'POST /api/user/change-password': 'Change your password (current password required); ends your other sessions',
  'POST /api/user/logout-everywhere': 'Sign out of every session of your account, this one included',
  'POST /api/admin/users/{email}/reset-link': 'Create a one-time link for a user to set a new password',
  'POST /api/user/get-session': 'The signed-in user',
  'POST /api/user/logout': 'Sign out',
  'DELETE /api/user/delete': 'Delete users (ADMIN) or your own account',
  'GET /api/user/{email}': 'A user by email',
  'GET /api/user/{email}/messaging-accounts': "A user's granted messaging accounts",
  'GET /api/app-config': 'Public app texts',
  'POST /api/admin/app-config': 'Change an app text',
  'GET /api/conversation-type/listt': 'List conversation types',
  'GET /api/conversation-type/{id}': 'A conversation type',
  'POST /api/admin/conversation-type/create-edit': 'Create or edit a conversation type',
  'POST /api/admin/conversation-type/{id}/delete': 'Delete a conversation type',
  'POST /api/admin/conversation-type/{id}/duplicate': 'Duplicate a conversation type',
  'POST /api/admin/conversation-type/{id}/config': "Set a conversation type's configuration",
  'GET /api/admin/conversation-phase/{typeId}/list': "List a conversation type's phases",
  'POST /api/admin/conversation-phase/create-edit': 'Create or edit a phase',
  'DELETE /api/admin/conversation-phase/{id}': 'Delete a phase',
  'GET /api/admin/messaging-accounts/list': 'List messaging accounts',
  'GET /api/admin/messaging-accounts/{id}': 'A messaging account',
  'POST /api/admin/messaging-accounts/create-edit': 'Create or edit a messaging account',
  'POST /api/admin/messaging-accounts/{id}/config': "Set a messaging account's configuration",
  'GET /api/admin/user-messaging-accounts/list': 'List grants of messaging accounts to users',
  'GET /api/admin/compliance/opt-outs': 'List every opt-out (audit): how, since, and who cleared it with which note',
  'GET /api/admin/compliance/consents': 'List every consent change (audit): WhatsApp opt-ins and withdrawals, source, who and when',
  'POST /api/admin/compliance/consents/import': 'Import WhatsApp opt-ins from a CSV (phone, optional note)',
  'POST /api/admin/user-messaging-accounts/create': 'Grant a messaging account to a user',
  'DELETE /api/admin/user-messaging-accounts/{id}': 'Revoke a grant',
  'GET /api/admin/pricing/conversation': 'Price of conversations',
  'GET /api/conversation/list': 'List conversations',
  'POST /api/conversation/new': 'Start a web chat',
  'GET /api/conversation/{uuid}': 'A conversation with its messages',
  'GET /api/conversation/{uuid}/events': 'Live changes of a conversation (server-sent events)',
  'PATCH /api/conversation/{id}': "Change a conversation's phase or type",
  'DELETE /api/conversation/{id}': 'Delete a conversation',
  'DELETE /api/conversation/{id}/messages': 'Delete messages of a conversation',
  'PATCH /api/conversation/{id}/message/{messageId}': 'Edit a message',
  'POST /api/conversation/{uuid}/written-message': 'Write a message into a conversation',
  'GET /api/admin/conversation/by-prospect': "A prospect's conversation",
  'POST /api/conversation/{uuid}/follow-up': 'Send a follow-up now',
  'GET /api/admin/unanswered-conversations/listt': 'List unanswered conversations',
  'DELETE /api/admin/unanswered-conversations/{id}': 'Dismiss an unanswered conversation',
  'PATCH /api/admin/unanswered-conversations/{id}': 'Change an unanswered conversation',
  'GET /api/call-recording/list': 'List call recordings',
  'GET /api/call-recording/transcription': 'Transcription status',
  'POST /api/call-recording/upload': 'Upload call recordings',
  'GET /api/call-recording/{id}/stream': 'Play a recording (HTTP ranges)',
  'GET /api/call-recording/{id}/download': 'Download a recording',
  'DELETE /api/call-recording/{id}': 'Delete a recording',
  'POST /api/call-recording/{id}/transcript': 'Generate a transcript',
  'GET /api/call-recording/{id}/transcript': 'A transcript',
  'GET /api/meta-api/webhook': 'Meta webhook subscription handshake',
  'POST /api/meta-api/webhook': 'Meta webhook (Instagram, Messenger, WhatsApp)',
  'POST /api/twilio/sms': 'Twilio SMS webhook',
  'POST /api/twilio/sms-status': 'Twilio SMS status callback (delivery states)',
  'POST /api/sms-gateway/webhook': 'SMS gateway webhook',
  'POST /api/admin/webhook-simulation/twilio': 'Simulate a Twilio webhook',
  'POST /api/admin/webhook-simulation/sms-gateway': 'Simulate an SMS gateway webhook',
  'POST /api/admin/conversation/{id}/messages/rebuild': "Rebuild a conversation's history from the channel",
};

type Operation = {
  summary?: string;
  description?: string;
  operationId?: string;
  security?: Record<string, string[]>[];
  'x-api-key-scopes'?: string[];
  parameters?: { name: string; in: string; description?: string }[];
};
type Schema = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** Completes the generated document (swagger's transformObject): summaries, ids, security, schema fixes. */
export function completeOpenapi({ openapiObject }: { openapiObject?: Record<string, unknown> }): Record<string, unknown> {
  const doc = openapiObject as { paths?: Record<string, Record<string, Operation>> } & Record<string, unknown>;
  if (!doc?.paths) return doc ?? {};
  const ids = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      op.summary ??= SUMMARIES[`${method.toUpperCase()} ${path}`] ?? fallbackSummary(method, path);
      op.operationId ??= uniqueId(operationIdOf(method, path), ids);
      const access = accessOf(method, path);
      if (access === 'public') op.security = [];
      if (access === 'provider') {
        op.security = [];
        op.description ??= 'Called by the provider; authenticated by its signature or verify token, not by a session.';
      }
      if (access === 'optional') op.security = [{}, { sessionCookie: [] }];
      const scopes = scopesOf(method, path);
      if (scopes !== null) {
        // OpenAPI 3.0 lets only OAuth schemes list scopes in `security`: they go in an extension and the text.
        op.security = [...(op.security && op.security.length > 0 ? op.security : access === 'public' ? [{}] : [{ sessionCookie: [] }]), { apiKey: [] }];
        op['x-api-key-scopes'] = scopes;
        const needs = scopes.length === 0 ? 'any API key' : `an API key with ${scopes.map((x) => `\`${x}\``).join(' or ')}`;
        op.description = `${op.description ? `${op.description}\n\n` : ''}Also callable with ${needs}.`;
      }
    }
  }
  mergeIdenticalPaths(doc.paths);
  fixNullable(doc);
  return doc;
}

/**
 * `/api/conversation/{uuid}` (read by uuid) and `/api/conversation/{id}` (change by id) differ only in the
 * parameter's name, which OpenAPI forbids. The paths stay as the spec has them; the document describes them
 * as one path whose parameter each operation defines (a uuid for GET, a number for PATCH/DELETE).
 */
function mergeIdenticalPaths(paths: Record<string, Record<string, Operation>>): void {
  const byShape = new Map<string, string>();
  for (const path of Object.keys(paths)) {
    const shape = path.replace(/\{[^}]+\}/g, '{}');
    const first = byShape.get(shape);
    if (!first) {
      byShape.set(shape, path);
      continue;
    }
    const names = (p: string) => [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const merged = names(first).map((a, i) => (a === names(path)[i] ? a : `${a}Or${capitalize(names(path)[i])}`));
    let mergedPath = shape;
    for (const name of merged) mergedPath = mergedPath.replace('{}', `{${name}}`);
    const target: Record<string, Operation> = {};
    for (const source of [first, path]) {
      const sourceNames = names(source);
      for (const [method, op] of Object.entries(paths[source])) {
        for (const parameter of op.parameters ?? []) {
          const i = sourceNames.indexOf(parameter.name);
          if (parameter.in === 'path' && i >= 0 && merged[i] !== parameter.name) {
            parameter.description ??= `The ${parameter.name} (${source} in the product's routes).`;
            parameter.name = merged[i];
          }
        }
        target[method] = op;
      }
      delete paths[source];
    }
    paths[mergedPath] = target;
    byShape.set(shape, mergedPath);
  }
}

/** OpenAPI 3.0 wants a `type` beside `nullable`; zod's unions produce `nullable` over `anyOf`. */
function fixNullable(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) fixNullable(item);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const schema = node as Schema;
  if (schema.nullable === true && schema.type === undefined) {
    const members = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    if (members && members.every((m) => m.type !== undefined)) {
      for (const member of members) member.nullable = true;
      delete schema.nullable;
    }
  }
  for (const value of Object.values(schema)) fixNullable(value);
}

function operationIdOf(method: string, path: string): string {
  const words = path
    .replace(/^\/api\//, '')
    .split('/')
    .flatMap((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      return param ? ['by', param[1]] : segment.split(/[^A-Za-z0-9]+/);
    })
    .filter(Boolean);
  return method.toLowerCase() + words.map(capitalize).join('');
}

function uniqueId(id: string, ids: Set<string>): string {
  let unique = id;
  for (let n = 2; ids.has(unique); n++) unique = `${id}${n}`;
  ids.add(unique);
  return unique;
}

function fallbackSummary(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/^\/api\//, '')}`;
}

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
