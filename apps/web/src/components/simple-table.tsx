import { Table, type TableProps } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A small table of a few rows (keys, deliveries, invitations, knowledge sources): one heading per column and
 * the caller's `<Table.Tr>` rows. With `minWidth` it scrolls sideways inside its own frame on a narrow screen.
 * Long or paged admin lists use RecordTable instead.
 */
export function SimpleTable({
  columns,
  minWidth,
  mt,
  children,
  ...props
}: Omit<TableProps, 'children'> & { columns: ReactNode[]; minWidth?: number; children: ReactNode }) {
  const table = (
    <Table mt={minWidth ? undefined : mt} {...props}>
      <Table.Thead>
        <Table.Tr>
          {columns.map((column, i) => (
            <Table.Th key={i}>{column}</Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>{children}</Table.Tbody>
    </Table>
  );
  return minWidth ? (
    <Table.ScrollContainer minWidth={minWidth} mt={mt}>
      {table}
    </Table.ScrollContainer>
  ) : (
    table
  );
}
