import type { ToolRequest, ToolStep } from './tool-types.ts';

/**
 * The offline demo agent's tool moves, deterministic so the booking flow is tryable with no API key: when the
 * prospect's message says "cancel", it cancels the booked meeting; "reschedule" or "move", it checks
 * availability and moves the meeting to the second free slot (the first is the one the demo booked); "book",
 * it checks availability, then books the first free slot; an email address it writes is recorded with update_lead
 * when the type has an email lead field; otherwise no tool.
 */
export function demoToolStep(request: ToolRequest): ToolStep {
  const none: ToolStep = { toolCalls: [], model: 'offline-demo', usage: null };
  const names = new Set(request.tools.map((t) => t.name));
  const said = request.facts.lastProspectMessage ?? '';
  const done = request.facts.results;
  if (done.some((r) => !r.ok && r.name !== 'update_lead') || done.some((r) => /^(book|reschedule|cancel)_meeting$/.test(r.name))) return none;
  const call = (id: string, name: string, args: unknown): ToolStep => ({ ...none, toolCalls: [{ id, name, arguments: JSON.stringify(args) }] });
  // An email address the prospect wrote goes into the type's email lead field first.
  const email = /[^\s@]+@[^\s@]+\.[a-z]{2,}/i.exec(said)?.[0];
  const leadTool = request.tools.find((t) => t.name === 'update_lead');
  const emailKey = Object.keys((leadTool?.parameters.properties ?? {}) as Record<string, unknown>).find((k) => /email/i.test(k));
  if (email && emailKey && !done.some((r) => r.name === 'update_lead')) return call('demo-lead', 'update_lead', { [emailKey]: email });
  if (/\bcancel/i.test(said)) return names.has('cancel_meeting') ? call('demo-cancel', 'cancel_meeting', { reason: said.slice(0, 200) }) : none;
  const move = /\b(reschedule|move)/i.test(said);
  if (!move && !/\bbook/i.test(said)) return none;
  const act = move ? 'reschedule_meeting' : 'book_meeting';
  if (!names.has('check_availability') || !names.has(act)) return none;
  const availability = done.find((r) => r.name === 'check_availability');
  if (!availability) return call('demo-1', 'check_availability', { timeZone: 'UTC' });
  const slots = (availability.value as { slots?: { start: string }[] }).slots ?? [];
  const chosen = move ? slots[1] : slots[0];
  if (!chosen) return none;
  return call('demo-2', act, { start: chosen.start, timeZone: 'UTC' });
}
