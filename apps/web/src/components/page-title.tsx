import { Title } from '@mantine/core';
import { useEffect } from 'react';

/** The page's heading, also used as the document title. */
export function PageTitle({ children }: { children: string }) {
  useEffect(() => {
    document.title = `${children} · Sales Agent`;
  }, [children]);
  return (
    <Title order={2} mb="md">
      {children}
    </Title>
  );
}
