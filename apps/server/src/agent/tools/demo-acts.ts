import type { ToolRequest, ToolStep } from './tool-types.ts';

/**
 * The offline demo agent's tool moves, deterministic so the booking flow is tryable with no API key: when the
 * prospect's message says "book", it checks availability, then books the first free slot; otherwise no tool.
 */
export function demoToolStep(request: ToolRequest): ToolStep {
  const none: ToolStep = { toolCalls: [], model: 'offline-demo', usage: null };
  const names = new Set(request.tools.map((t) => t.name));
  if (!/\bbook/i.test(request.facts.lastProspectMessage ?? '') || !names.has('check_availability') || !names.has('book_meeting')) return none;
  const done = request.facts.results;
  if (done.some((r) => r.name === 'book_meeting') || done.some((r) => !r.ok)) return none;
  const availability = done.find((r) => r.name === 'check_availability');
  if (!availability) return { ...none, toolCalls: [{ id: 'demo-1', name: 'check_availability', arguments: '{"timeZone":"UTC"}' }] };
  const first = (availability.value as { slots?: { start: string }[] }).slots?.[0];
  if (!first) return none;
  return { ...none, toolCalls: [{ id: 'demo-2', name: 'book_meeting', arguments: JSON.stringify({ start: first.start, timeZone: 'UTC' }) }] };
}
