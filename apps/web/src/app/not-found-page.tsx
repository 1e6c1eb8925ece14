import { Button, Group, Stack, Text } from '@mantine/core';
import { IconArrowLeft, IconHome } from '@tabler/icons-react';
import { Link, useNavigate } from 'react-router';
import { PageTitle } from '../components/page-title.tsx';
import { paths } from '../config/paths.ts';

/**
 * Unknown routes, inside the shell so the navigation stays. Render errors reach router.tsx's error boundary
 * ('Unexpected Application Error!', spec §8.3), which this page does not replace.
 */
export default function NotFoundPage() {
  const navigate = useNavigate();
  return (
    <Stack maw={560} gap="sm">
      <PageTitle>404 Not Found</PageTitle>
      <Text>There is no page at this address. It may have moved, or the link may be mistyped.</Text>
      <Group>
        <Button component={Link} to={paths.home} leftSection={<IconHome size={18} aria-hidden />}>
          Go to the start page
        </Button>
        <Button variant="default" onClick={() => navigate(-1)} leftSection={<IconArrowLeft size={18} aria-hidden />}>
          Back
        </Button>
      </Group>
    </Stack>
  );
}
