import { Alert, Title } from '@mantine/core';

/** A clear placeholder for a screen that is not built yet (no dead buttons, no blank page). */
export function ComingSoon({ title }: { title: string }) {
  return (
    <>
      <Title order={2} mb="md">
        {title}
      </Title>
      <Alert color="gray" title="Coming soon">
        This screen is not available yet in this version of Sales Agent.
      </Alert>
    </>
  );
}
