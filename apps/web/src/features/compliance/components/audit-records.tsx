import { Pagination, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import type { UseQueryResult } from '@tanstack/react-query';
import type { DataTableColumn } from 'mantine-datatable';
import { useState } from 'react';
import { QueryState } from '../../../components/query-state.tsx';
import { RecordTable } from '../../../components/record-table.tsx';
import { AUDIT_PAGE_SIZE } from '../api/audit-page.ts';

/** An audit list's filter: the typed address (debounced for the query) and the page, back to 1 when it changes. */
export function useAuditFilter() {
  const [address, setTyped] = useState('');
  const [search] = useDebouncedValue(address, 300);
  const [page, setPage] = useState(1);
  const setAddress = (value: string) => {
    setTyped(value);
    setPage(1);
  };
  return { address, setAddress, search, page, setPage };
}

export function AddressFilter({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return <TextInput label="Address" description="A phone number or part of one" value={value} onChange={(e) => onChange(e.currentTarget.value)} />;
}

/** The audit screens' table (issue 23): newest first, 50 rows a page, a sentence when nothing matches. */
export function AuditRecords<T>(props: {
  query: UseQueryResult<{ items: T[]; total: number }>;
  label: string;
  empty: string;
  /** The page shown and its setter (useAuditFilter's). */
  filter: { page: number; setPage: (page: number) => void };
  columns: DataTableColumn<T>[];
}) {
  return (
    <QueryState query={props.query} title={props.label}>
      {({ items, total }) =>
        items.length === 0 ? (
          <Text c="dimmed">{props.empty}</Text>
        ) : (
          <>
            <RecordTable<T> aria-label={props.label} records={items} columns={props.columns} />
            {total > AUDIT_PAGE_SIZE && (
              <Pagination mt="md" total={Math.ceil(total / AUDIT_PAGE_SIZE)} value={props.filter.page} onChange={props.filter.setPage} aria-label={`${props.label} pages`} />
            )}
          </>
        )
      }
    </QueryState>
  );
}
