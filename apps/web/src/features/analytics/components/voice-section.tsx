import { useQuery } from '@tanstack/react-query';
import { type AnalyticsFilters, type VoiceResult, voiceQuery } from '../api/analytics.ts';
import { FigureSection } from './figure-section.tsx';
import { FigureTable } from './figure-table.tsx';
import { FigureToolbar } from './figure-toolbar.tsx';

const share = (v: number | null) => (v === null ? '–' : `${Math.round(v * 1000) / 10} %`);

export function voiceRows(v: VoiceResult): [string, string][] {
  return [
    ['Calls', String(v.calls)],
    ['Inbound / outbound', `${v.inbound} / ${v.outbound}`],
    ['Picked up', `${v.pickedUp} (${share(v.pickUpRate)})`],
    ['Voicemail', `${v.voicemail} (${share(v.voicemailRate)})`],
    ['Average duration', v.averageDurationSeconds === null ? '–' : `${v.averageDurationSeconds} s`],
  ];
}

/** Issue 26: the phone calls among the conversations. */
export function VoiceSection({ filters }: { filters: AnalyticsFilters }) {
  const voice = useQuery(voiceQuery(filters));
  return (
    <FigureSection
      title="Voice"
      query={voice}
      toolbar={(data) => <FigureToolbar name="Voice" csv={() => ({ header: ['figure', 'value'], rows: voiceRows(data) })} />}
    >
      {(data) => <FigureTable label="Voice" rows={voiceRows(data)} />}
    </FigureSection>
  );
}
