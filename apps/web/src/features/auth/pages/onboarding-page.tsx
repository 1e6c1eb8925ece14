import { Loader, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { PageTitle } from '../../../components/page-title.tsx';
import { SafeHtml } from '../../../components/safe-html.tsx';
import { appConfigQuery } from '../../admin/api/app-config.ts';

/** Spec §2.14: onboarding page showing the admin-configured HTML, sanitized. */
export default function OnboardingPage() {
  const { data, isPending } = useQuery(appConfigQuery('onboardingHTML'));
  return (
    <>
      <PageTitle>Welcome to Sales Agent</PageTitle>
      {isPending ? (
        <Loader />
      ) : data ? (
        <SafeHtml html={data} data-testid="onboarding-html" />
      ) : (
        <Text c="dimmed">Your account is ready. Start a conversation with the sales agent from the menu above.</Text>
      )}
    </>
  );
}
