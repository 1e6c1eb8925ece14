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
