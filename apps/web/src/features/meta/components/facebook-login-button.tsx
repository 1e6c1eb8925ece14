import { Button } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { metaConfigQuery, useStartMetaOAuth } from '../api/meta.ts';

/** 'Continue with Facebook' (spec §2.14), shown only when the server has a Meta app (META_APP_ID). */
export function FacebookLoginButton() {
  const config = useQuery(metaConfigQuery());
  const { start, starting } = useStartMetaOAuth();
  if (!config.data?.metaAppId) return null;
  return (
    <Button variant="outline" color="blue" loading={starting !== null} onClick={() => start('LOGIN')}>
      Continue with Facebook
    </Button>
  );
}
