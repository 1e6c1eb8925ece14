import { Button } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { toastError } from '../../../lib/toast.ts';
import { metaConfigQuery, startMetaOAuth } from '../api/meta.ts';

/** 'Continue with Facebook' (spec §2.14), shown only when the server has a Meta app (META_APP_ID). */
export function FacebookLoginButton() {
  const config = useQuery(metaConfigQuery());
  const [busy, setBusy] = useState(false);
  if (!config.data?.metaAppId) return null;
  const start = async () => {
    setBusy(true);
    try {
      await startMetaOAuth('LOGIN');
    } catch (err) {
      toastError(err);
      setBusy(false);
    }
  };
  return (
    <Button variant="outline" color="blue" loading={busy} onClick={start}>
      Continue with Facebook
    </Button>
  );
}
