// TEMP placeholder of the lead (helper A replaces this file).
export function splitMessage(text: string, limit: { unit: 'bytes' | 'chars'; max: number }): string[] {
  return [text.slice(0, limit.max)];
}
