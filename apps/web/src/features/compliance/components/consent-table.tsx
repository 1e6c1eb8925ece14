import { Alert, Badge, Button, FileButton, Group, List, Text } from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { consentsQuery, type ConsentAuditItem, type ConsentImportResult, useImportConsents } from '../api/consents.ts';
import { AddressFilter, AuditRecords, useAuditFilter } from './audit-records.tsx';

/** Skipped rows listed under an import; the rest are counted. */
const SKIPPED_SHOWN = 20;

/**
 * Issue 23: every WhatsApp opt-in and withdrawal, newest first — where it came from (the prospect writing
 * first, the API, an import, a person, an opt-out), who recorded it and their note — and the import of
 * opt-ins gathered elsewhere from a CSV.
 */
export function ConsentTable() {
  const filter = useAuditFilter();
  const consents = useQuery(consentsQuery({ address: filter.search, page: filter.page }));
  const importing = useImportConsents();
  return (
    <>
      <Text c="dimmed" mb="md">
        WhatsApp lets a business start a conversation only with people who opted in. The newest entry of a number is its current
        state.
      </Text>
      <Group mb="md" align="flex-end" justify="space-between">
        <AddressFilter value={filter.address} onChange={filter.setAddress} />
        <FileButton onChange={(file) => file && importing.mutate(file)} accept=".csv,text/csv">
          {(props) => (
            <Button {...props} variant="light" leftSection={<IconUpload size={16} aria-hidden />} loading={importing.isPending}>
              Import opt-ins from CSV…
            </Button>
          )}
        </FileButton>
      </Group>
      <Text size="xs" c="dimmed" mb="md">
        The CSV needs a header row with a <code>phone</code> column (numbers with their country code, e.g. +14155550123) and may have a{' '}
        <code>note</code> column saying where the opt-in was given.
      </Text>
      {importing.data && <ImportResult result={importing.data} />}
      <AuditRecords<ConsentAuditItem>
        query={consents}
        label="WhatsApp opt-ins"
        empty="No consent change matches."
        filter={filter}
        columns={[
          { accessor: 'address', title: 'Address' },
          {
            accessor: 'granted',
            title: 'Opt-in',
            render: (row) => (
              <Badge color={row.granted ? 'green' : 'gray'} variant="light">
                {row.granted ? 'Given' : 'Withdrawn'}
              </Badge>
            ),
          },
          { accessor: 'source', title: 'Source' },
          { accessor: 'by', title: 'By', render: (row) => row.by ?? '—' },
          { accessor: 'note', title: 'Note', render: (row) => row.note ?? '' },
          { accessor: 'at', title: 'When', render: (row) => new Date(row.at).toLocaleString() },
        ]}
      />
    </>
  );
}

function ImportResult({ result }: { result: ConsentImportResult }) {
  const { imported, skipped } = result;
  return (
    <Alert color={skipped.length ? 'yellow' : 'green'} mb="md" title={`Imported ${imported} opt-in${imported === 1 ? '' : 's'}`} data-testid="consent-import-result">
      {skipped.length > 0 && (
        <>
          <Text size="sm">
            {skipped.length} row{skipped.length === 1 ? ' was' : 's were'} skipped (row 1 is the first under the header):
          </Text>
          <List size="sm">
            {skipped.slice(0, SKIPPED_SHOWN).map((s) => (
              <List.Item key={s.row}>
                Row {s.row}: {s.reason}
              </List.Item>
            ))}
          </List>
          {skipped.length > SKIPPED_SHOWN && <Text size="sm">…and {skipped.length - SKIPPED_SHOWN} more.</Text>}
        </>
      )}
    </Alert>
  );
}
