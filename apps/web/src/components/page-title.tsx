import { Title } from '@mantine/core';
import { useEffect } from 'react';

/** The page's one h1, also used as the document title. */
export function PageTitle({ children }: { children: string }) {
  useEffect(() => {
    document.title = `${children} · Sales Agent`;
  }, [children]);
  return (
    <Title order={1} fz="h2" mb="md">
      {children}
    </Title>
  );
}
