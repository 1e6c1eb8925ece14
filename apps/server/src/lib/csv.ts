import Papa from 'papaparse';

/**
 * The rows of an imported CSV with a header row (Papa Parse), as every import reads them (FAQ entries, campaign
 * audiences, WhatsApp opt-ins): a leading byte-order mark dropped, blank lines skipped, headers trimmed and, with
 * `lowerCaseHeaders`, lower-cased so "Phone" and "phone" are one column.
 */
export function parseCsvWithHeader(csv: string, options: { lowerCaseHeaders?: boolean } = {}): Papa.ParseResult<Record<string, string>> {
  return Papa.parse<Record<string, string>>(csv.replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: 'greedy',
    transformHeader: (header) => (options.lowerCaseHeaders ? header.trim().toLowerCase() : header.trim()),
  });
}
