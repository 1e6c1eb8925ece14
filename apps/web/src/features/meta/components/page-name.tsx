import { useQuery } from '@tanstack/react-query';
import { pageNameQuery } from '../api/meta.ts';

/**
 * A connected account's name: looked up live for INSTAGRAM and FACEBOOK (spec §2.14), the stored name
 * meanwhile and for the other types.
 */
export function PageName({ account }: { account: { type: string; pageId: string; pageName: string } }) {
  const lookup = account.type === 'INSTAGRAM' || account.type === 'FACEBOOK';
  const name = useQuery({ ...pageNameQuery(account.pageId, account.type as 'INSTAGRAM' | 'FACEBOOK'), enabled: lookup });
  return <span data-testid="page-name">{(lookup && name.data) || account.pageName}</span>;
}
