import { Badge, Checkbox, Group, Pagination, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { PageTitle } from '../../../components/page-title.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { RecordTable } from '../../../components/record-table.tsx';
import { OPT_OUT_PAGE_SIZE, optOutsQuery, type OptOutAuditItem } from '../api/opt-outs.ts';

/**
 * Issue 23 item 5: every opt-out the product recorded, newest first — the address, the channel and how it was
 * set, since when, and for an ended one who ended it (the prospect's START or a person) with their note.
 */
export default function OptOutAuditPage() {
  const [activeOnly, setActiveOnly] = useState(false);
  const [address, setAddress] = useState('');
  const [search] = useDebouncedValue(address, 300);
  const [page, setPage] = useState(1);
  const optOuts = useQuery(optOutsQuery({ activeOnly, address: search, page }));

  return (
    <>
      <PageTitle>Opt-outs</PageTitle>
      <Text c="dimmed" mb="md">
        People who asked not to be contacted (STOP or in plain words). While an opt-out is active, no agent reply, follow-up,
        call or campaign message reaches them.
      </Text>
      <Group mb="md" align="flex-end">
        <TextInput
          label="Address"
          description="A phone number or part of one"
          value={address}
          onChange={(e) => {
            setAddress(e.currentTarget.value);
            setPage(1);
          }}
        />
        <Checkbox
          label="Only active opt-outs"
          checked={activeOnly}
          onChange={(e) => {
            setActiveOnly(e.currentTarget.checked);
            setPage(1);
          }}
        />
      </Group>
      <QueryState query={optOuts} title="Opt-outs">
        {({ items, total }) =>
          items.length === 0 ? (
            <Text c="dimmed">No opt-out matches.</Text>
          ) : (
            <>
              <RecordTable<OptOutAuditItem>
                aria-label="Opt-outs"
                records={items}
                columns={[
                  { accessor: 'address', title: 'Address' },
                  { accessor: 'channel', title: 'Channel' },
                  { accessor: 'how', title: 'How' },
                  { accessor: 'since', title: 'Since', render: (row) => new Date(row.since).toLocaleString() },
                  {
                    accessor: 'status',
                    title: 'Status',
                    render: (row) =>
                      row.clearedAt ? (
                        <Text size="sm" data-testid="opt-out-cleared">
                          Cleared {new Date(row.clearedAt).toLocaleString()} by {row.clearedBy ?? 'the prospect (START)'}
                          {row.clearNote ? `: ${row.clearNote}` : ''}
                        </Text>
                      ) : (
                        <Badge color="red" variant="light" data-testid="opt-out-active">
                          Active
                        </Badge>
                      ),
                  },
                ]}
              />
              {total > OPT_OUT_PAGE_SIZE && (
                <Pagination mt="md" total={Math.ceil(total / OPT_OUT_PAGE_SIZE)} value={page} onChange={setPage} aria-label="Opt-out pages" />
              )}
            </>
          )
        }
      </QueryState>
    </>
  );
}
