import { Anchor, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { PageTitle } from '../../../components/page-title.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { RecordTable } from '../../../components/record-table.tsx';
import { paths } from '../../../config/paths.ts';
import { campaignsQuery, type CampaignSummary } from '../api/campaigns.ts';
import { CreateCampaign } from './create-campaign-form.tsx';
import { CampaignStatusBadge } from './campaign-status.tsx';

/**
 * Issue 23 item 4: the campaigns (newest first, with progress) and a form to create one from a CSV of
 * numbers. Each opens on its own page with live progress per contact.
 */
export default function CampaignsPage() {
  const campaigns = useQuery(campaignsQuery());
  return (
    <>
      <PageTitle>Campaigns</PageTitle>
      <Text c="dimmed" mb="md">
        Call or message a list of people, paced and only inside your calling window in each person&apos;s local time (never 9 PM–8
        AM). Opted-out numbers are skipped, and no number is contacted twice.
      </Text>
      <CreateCampaign />
      <QueryState query={campaigns} title="Campaigns">
        {(list) =>
          list.length === 0 ? (
            <Text c="dimmed" mt="md">
              No campaigns yet.
            </Text>
          ) : (
            <RecordTable<CampaignSummary>
              aria-label="Campaigns"
              mt="md"
              pinLastColumn={false}
              records={list}
              columns={[
                { accessor: 'name', title: 'Name', render: (c) => <Anchor component={Link} to={paths.admin.campaign(c.id)}>{c.name}</Anchor> },
                { accessor: 'channel', title: 'Channel' },
                { accessor: 'status', title: 'Status', render: (c) => <CampaignStatusBadge status={c.status} /> },
                { accessor: 'progress', title: 'Progress', render: (c) => `${c.counts.total - c.counts.queued - c.counts.calling} of ${c.counts.total} finished` },
                { accessor: 'createdAt', title: 'Created', render: (c) => new Date(c.createdAt).toLocaleString() },
              ]}
            />
          )
        }
      </QueryState>
    </>
  );
}
