import { Table, type TableProps } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A small table of a few rows (keys, deliveries, invitations, knowledge sources, users, canned replies): one
 * heading per column and the caller's `<Table.Tr>` rows. With `minWidth` it scrolls sideways inside its own frame
 * on a narrow screen; keyboard users reach that frame with Tab (axe scrollable-region-focusable, as RecordTable).
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
    <Table.ScrollContainer minWidth={minWidth} mt={mt} scrollAreaProps={{ viewportProps: { tabIndex: 0 } }}>
      {table}
    </Table.ScrollContainer>
  ) : (
    table
  );
}
