import { Anchor, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { SimpleTable } from '../../../components/simple-table.tsx';
import { paths } from '../../../config/paths.ts';
import { type AnalyticsFilters, type CampaignFiguresResult, campaignFiguresQuery } from '../api/analytics.ts';
import { FigureSection } from './figure-section.tsx';
import { FigureToolbar } from './figure-toolbar.tsx';

const COLUMNS = [
  { key: 'contacted', label: 'Contacted' },
  { key: 'answered', label: 'Answered' },
  { key: 'sent', label: 'Sent' },
  { key: 'voicemail', label: 'Voicemail' },
  { key: 'noAnswer', label: 'No answer / busy' },
  { key: 'booked', label: 'Booked' },
  { key: 'optedOut', label: 'Opted out' },
  { key: 'failed', label: 'Failed' },
] as const;

type Row = CampaignFiguresResult['campaigns'][number];

/** The CSV of the section: one row per campaign, one column per figure. */
export function campaignCsv(rows: Row[]) {
  return { header: ['campaign', 'channel', 'status', ...COLUMNS.map((c) => c.key)], rows: rows.map((r) => [r.name, r.channel, r.status, ...COLUMNS.map((c) => r[c.key])]) };
}

/** Issue 23: the outbound campaigns of the type, by outcome of the contacts finished in the range (ADMIN only). */
export function CampaignsSection({ filters }: { filters: AnalyticsFilters }) {
  const figures = useQuery(campaignFiguresQuery(filters));
  return (
    <FigureSection
      title="Campaigns"
      query={figures}
      toolbar={(data) => data.campaigns.length > 0 && <FigureToolbar name="Campaigns" csv={() => campaignCsv(data.campaigns)} />}
    >
      {(data) =>
        data.campaigns.length === 0 ? (
          <Text c="dimmed">No campaign contact of this type finished in the range.</Text>
        ) : (
          <SimpleTable aria-label="Campaigns" minWidth={640} columns={['Campaign', ...COLUMNS.map((c) => c.label)]}>
            {data.campaigns.map((r) => (
              <Table.Tr key={r.id}>
                <Table.Th scope="row">
                  <Anchor component={Link} to={paths.admin.campaign(r.id)}>
                    {r.name}
                  </Anchor>
                </Table.Th>
                {COLUMNS.map((c) => (
                  <Table.Td key={c.key}>{r[c.key]}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </SimpleTable>
        )
      }
    </FigureSection>
  );
}
