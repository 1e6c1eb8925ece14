import { Table } from '@mantine/core';

/** A two-column table of named figures (speed, voice): each row a figure's name and its value. */
export function FigureTable({ label, rows }: { label: string; rows: [string, string][] }) {
  return (
    <Table aria-label={label}>
      <Table.Tbody>
        {rows.map(([name, value]) => (
          <Table.Tr key={name}>
            <Table.Th scope="row">{name}</Table.Th>
            <Table.Td>{value}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/**
 * A table of rows whose first column names the row and the others are figures (right-aligned). With `total`
 * (the default) the last row is the total and reads bold. The first cell of a row is its key: it must be unique.
 */
export function RowsTable({ label, header, rows, total = true }: { label: string; header: string[]; rows: (string | number)[][]; total?: boolean }) {
  return (
    <Table aria-label={label}>
      <Table.Thead>
        <Table.Tr>
          {header.map((h, i) => (
            <Table.Th key={i} ta={i === 0 ? undefined : 'right'}>
              {h}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((r, i) => (
          <Table.Tr key={String(r[0])} fw={total && i === rows.length - 1 ? 600 : undefined}>
            {r.map((cell, j) => (
              <Table.Td key={j} ta={j === 0 ? undefined : 'right'}>
                {cell}
              </Table.Td>
            ))}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
