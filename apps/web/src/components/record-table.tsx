import { Button, Flex } from '@mantine/core';
import { IconPencil, IconSettings, IconTrash } from '@tabler/icons-react';
import { DataTable, type DataTableColumn, type DataTableProps } from 'mantine-datatable';
// Only page chunks import this module, so the stylesheet stays out of the start page's bundle.
import 'mantine-datatable/styles.css';
import type { ReactNode } from 'react';
import { Link } from 'react-router';

/**
 * The admin screens' list of records (issue 12 item 5): mantine-datatable with the project's defaults. The
 * table scrolls sideways inside its own frame and its last column (the row's actions) stays pinned in view, so
 * a phone never pushes the Actions off-screen. A table without actions passes `pinLastColumn={false}`. Rows with
 * form fields must not leave one under the pinned column at rest on a phone (issue 24; a field there cannot be
 * seen while typing): stack them in one column there, as phases-table.tsx does (e2e expectPinnedColumnCoversNoField).
 */
export function RecordTable<T>(props: DataTableProps<T>) {
  return (
    <DataTable
      withTableBorder
      striped
      highlightOnHover
      pinLastColumn
      minHeight={0}
      verticalSpacing="xs"
      // A table wider than a phone scrolls sideways in this frame; keyboard users reach it with Tab and scroll
      // it with the arrow keys even when no row has a link or button (WCAG 2.1.1, axe scrollable-region-focusable).
      scrollAreaProps={{ viewportProps: { tabIndex: 0 } }}
      {...props}
    />
  );
}

/** Width of an actions column: as narrow as its buttons, the rest goes to the data. */
export const ACTIONS_COLUMN_WIDTH = '1%';

/**
 * A row's action buttons: one line on a wide screen; on a phone they wrap inside a narrow block so the pinned
 * column leaves room for the data beside it.
 */
export function RowActions({ children, phoneWidth = 150 }: { children: ReactNode; phoneWidth?: number }) {
  return (
    <Flex columnGap="xs" rowGap={6} wrap={{ base: 'wrap', sm: 'nowrap' }} maw={{ base: phoneWidth, sm: 'none' }}>
      {children}
    </Flex>
  );
}

/**
 * The last column of an admin list: "Actions", as narrow as its buttons, the row's buttons in RowActions
 * (`phoneWidth` as there).
 */
export function actionsColumn<T>(render: (record: T) => ReactNode, phoneWidth?: number): DataTableColumn<T> {
  return {
    accessor: 'actions',
    title: 'Actions',
    width: ACTIONS_COLUMN_WIDTH,
    render: (record) => <RowActions phoneWidth={phoneWidth}>{render(record)}</RowActions>,
  };
}

/** The Edit and Config links a record's actions start with (conversation types, messaging accounts). */
export function EditConfigActions({ editTo, configTo }: { editTo: string; configTo: string }) {
  return (
    <>
      <Button size="xs" variant="light" leftSection={<IconPencil size={14} aria-hidden />} component={Link} to={editTo}>
        Edit
      </Button>
      <Button size="xs" variant="light" leftSection={<IconSettings size={14} aria-hidden />} component={Link} to={configTo}>
        Config
      </Button>
    </>
  );
}

/** A record's Delete button, last in its actions; the caller confirms. */
export function DeleteAction({ onClick, disabled }: { onClick(): void; disabled?: boolean }) {
  return (
    <Button size="xs" color="red" variant="light" leftSection={<IconTrash size={14} aria-hidden />} disabled={disabled} onClick={onClick}>
      Delete
    </Button>
  );
}
