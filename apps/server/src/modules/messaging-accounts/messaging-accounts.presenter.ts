import type { MessagingAccountView } from '@sales-agent/shared/schemas/messaging-account';
import type { AppContext } from '../../context.ts';
import { maskSecret } from '../../lib/crypto.ts';
import { maskConfigSecrets } from '../crm/crm-config.ts';
import { readAccessToken, reconnectNeeded } from './access.ts';

export interface MessagingAccountRow {
  id: number;
  type: MessagingAccountView['type'];
  accessTokenEncrypted: string;
  pageId: string;
  pageName: string;
  expirationDate: Date | null;
  conversationTypeId: number | null;
  config: string;
  tokenRejectedAt: Date | null;
}

/**
 * The admin view of an account (spec §3 "Messaging account"). Fields are picked one by one: the token is
 * represented only by `accessTokenSet` and a masked hint, never in full (DESIGN.md §7).
 */
export function presentMessagingAccount(
  ctx: AppContext,
  row: MessagingAccountRow,
  conversationType: { id: number; title: string | null } | null,
  grants: { id: number; email: string }[],
): MessagingAccountView {
  return {
    id: row.id,
    type: row.type,
    pageId: row.pageId,
    pageName: row.pageName,
    expirationDate: row.expirationDate ? row.expirationDate.toISOString() : null,
    conversationTypeId: row.conversationTypeId,
    conversationType,
    // An SMS gateway's signingKey is shown masked like the CRM apiKey (saving the mask back keeps it).
    config: row.type === 'SMS_GATEWAY' ? maskConfigSecrets(ctx, row.config, 'signingKey') : row.config,
    user_messaging_accounts: grants.map((g) => ({ id: g.id, user: { email: g.email } })),
    accessTokenSet: true,
    accessTokenHint: tokenHint(ctx, row.accessTokenEncrypted),
    reconnectNeeded: reconnectNeeded(row),
  };
}

function tokenHint(ctx: AppContext, sealed: string): string | null {
  try {
    return maskSecret(readAccessToken(ctx, { accessTokenEncrypted: sealed }));
  } catch {
    // Sealed under another APP_SECRET: the account exists but its token must be entered again.
    return null;
  }
}
