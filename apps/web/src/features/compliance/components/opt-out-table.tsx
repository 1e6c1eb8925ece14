import { Badge, Checkbox, Group, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { optOutsQuery, type OptOutAuditItem } from '../api/opt-outs.ts';
import { AddressFilter, AuditRecords, useAuditFilter } from './audit-records.tsx';

/**
 * Issue 23 item 5: every opt-out the product recorded, newest first — the address, the channel and how it was
 * set, since when, and for an ended one who ended it (the prospect's START or a person) with their note.
 */
export function OptOutTable() {
  const filter = useAuditFilter();
  const [activeOnly, setActiveOnly] = useState(false);
  const optOuts = useQuery(optOutsQuery({ activeOnly, address: filter.search, page: filter.page }));
  return (
    <>
      <Text c="dimmed" mb="md">
        People who asked not to be contacted (STOP or in plain words). While an opt-out is active, no agent reply, follow-up,
        call or campaign message reaches them.
      </Text>
      <Group mb="md" align="flex-end">
        <AddressFilter value={filter.address} onChange={filter.setAddress} />
        <Checkbox
          label="Only active opt-outs"
          checked={activeOnly}
          onChange={(e) => {
            setActiveOnly(e.currentTarget.checked);
            filter.setPage(1);
          }}
        />
      </Group>
      <AuditRecords<OptOutAuditItem>
        query={optOuts}
        label="Opt-outs"
        empty="No opt-out matches."
        filter={filter}
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
    </>
  );
}
