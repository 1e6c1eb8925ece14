import { Button, Card, Group, Loader, Stack, Textarea } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { AppConfigKey } from '@sales-agent/shared/enums';
import { DEFAULT_SUPPORT_MESSAGE, LIMITS } from '@sales-agent/shared/limits';
import { useEffect, useState } from 'react';
import { PageTitle } from '../../../components/page-title.tsx';
import { appConfigQuery, useSaveAppConfig } from '../api/app-config.ts';

/** Spec §2.4: three text areas, each with its own Save; plus the optional global message. */
export default function AppConfigPage() {
  return (
    <>
      <PageTitle>App config</PageTitle>
      <Stack>
        <ConfigField configKey="registerHTML" label="Register page HTML" rows={LIMITS.appConfigRows} />
        <ConfigField configKey="supportMessage" label="Support message" rows={3} placeholder={DEFAULT_SUPPORT_MESSAGE} />
        <ConfigField configKey="onboardingHTML" label="Onboarding HTML" rows={LIMITS.appConfigRows} />
        <ConfigField
          configKey="globalMessage"
          label="Global message"
          rows={2}
          description="Shown at the top of every page, at most once every 3 hours per device. Leave empty for none."
        />
      </Stack>
    </>
  );
}

function ConfigField(props: { configKey: AppConfigKey; label: string; rows: number; placeholder?: string; description?: string }) {
  const query = useQuery(appConfigQuery(props.configKey));
  const save = useSaveAppConfig(props.configKey);
  const [value, setValue] = useState('');
  useEffect(() => {
    if (query.data !== undefined) setValue(query.data);
  }, [query.data]);

  return (
    <Card withBorder>
      {query.isPending ? (
        <Loader size="sm" />
      ) : (
        <Textarea
          label={props.label}
          description={props.description}
          placeholder={props.placeholder}
          rows={props.rows}
          value={value}
          onChange={(e) => setValue(e.currentTarget.value)}
          styles={{ input: { fontFamily: props.configKey.endsWith('HTML') ? 'monospace' : undefined } }}
        />
      )}
      <Group justify="flex-end" mt="sm">
        <Button onClick={() => save.mutate(value)} loading={save.isPending} aria-label={`Save ${props.label}`}>
          Save
        </Button>
      </Group>
    </Card>
  );
}
