/**
 * The list's filters in the query string (spec §2.13). Kept apart from the filter form (list-filters.tsx) so
 * the list page can count active filters without loading the form, which loads when first shown.
 */

/** The text/number filters, applied together with "Apply filters" (the selects apply at once). */
export const TEXT_FILTERS = [
  'uuid',
  'prospectUuid',
  'phase',
  'minRating',
  'maxRating',
  'minRecordingDuration',
  'maxRecordingDuration',
  'outcome',
] as const;

/** Every filter key: the text filters and the two selects. */
export const FILTER_KEYS = [...TEXT_FILTERS, 'conversationType', 'hasRecording', 'state', 'channel', 'q', 'assignee', 'needsPerson'] as const;
