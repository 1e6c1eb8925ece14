import { Button, Group, SegmentedControl } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { downloadCsv, toCsv } from './funnel-rows.ts';

/** A figure's chart/table switch (when it has a chart) and its CSV export. */
export function FigureToolbar({
  name,
  view,
  onView,
  csv,
}: {
  /** Names the switch ("<name> view"), the button ("Export <name> CSV") and the file (<name>.csv, lower case). */
  name: string;
  /** Omitted for a figure shown as a table only. */
  view?: string;
  onView?: (view: string) => void;
  csv: () => { header: string[]; rows: (string | number | null)[][] };
}) {
  const exportCsv = () => {
    const { header, rows } = csv();
    downloadCsv(`${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.csv`, toCsv(header, rows));
  };
  return (
    <Group gap="xs">
      {view !== undefined && onView && (
        <SegmentedControl size="xs" value={view} onChange={onView} data={[{ value: 'chart', label: 'Chart' }, { value: 'table', label: 'Table' }]} aria-label={`${name} view`} />
      )}
      <Button size="xs" variant="default" leftSection={<IconDownload size={14} aria-hidden />} onClick={exportCsv}>
        Export {name} CSV
      </Button>
    </Group>
  );
}
