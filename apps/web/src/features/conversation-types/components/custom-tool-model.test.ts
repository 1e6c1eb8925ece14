import { describe, expect, it } from 'vitest';
import { configWithTool, EMPTY_TOOL_FORM, formToTool, toolToForm } from './custom-tool-model.ts';
import type { CustomToolConfig } from '@sales-agent/shared/schemas/custom-tools';

const form = {
  ...EMPTY_TOOL_FORM,
  name: 'order_status',
  description: 'Looks up an order.',
  parameters: '{"type": "object", "properties": {"orderId": {"type": "string"}}}',
  url: 'https://api.example.com/orders/{orderId}',
  headers: [{ name: 'X-Api-Key', value: 'k-123', stored: null }],
  confirm: true,
};

describe('custom tool form model', () => {
  it('builds the config tool from the form, with confirm and without empty keys', () => {
    const built = formToTool(form);
    expect(built).toEqual({
      tool: {
        name: 'order_status',
        description: 'Looks up an order.',
        parameters: { type: 'object', properties: { orderId: { type: 'string' } } },
        method: 'POST',
        url: 'https://api.example.com/orders/{orderId}',
        headers: { 'X-Api-Key': 'k-123' },
        confirm: true,
      },
    });
  });

  it('refuses parameters that are not JSON or not an object schema, and a built-in name', () => {
    expect(formToTool({ ...form, parameters: '{type: object' })).toEqual({ problem: expect.stringContaining('Parameters are not valid JSON') });
    expect(formToTool({ ...form, parameters: '{"type": "string"}' })).toEqual({ problem: 'Parameters must be a JSON Schema object with "type": "object".' });
    expect(formToTool({ ...form, name: 'book_meeting' })).toEqual({ problem: 'name: is the name of a built-in tool' });
    expect(formToTool({ ...form, url: 'ftp://x' })).toEqual({ problem: 'url: must be an http or https URL' });
  });

  it('keeps masked secret values when their fields are left blank, and never puts them in the form', () => {
    const stored = { ...(formToTool(form) as { tool: CustomToolConfig }).tool, headers: { 'X-Api-Key': '••••9911' }, secret: '••••abcd', timeoutMs: 3000, includeTranscript: true };
    const values = toolToForm(stored);
    expect(values.headers).toEqual([{ name: 'X-Api-Key', value: '', stored: '••••9911' }]);
    expect(values.secret).toBe('');
    const again = formToTool({ ...values, description: 'Changed.' }, stored);
    expect(again).toEqual({ tool: { ...stored, description: 'Changed.' } });
  });

  it('writes the tool into the config text at its place, refusing a duplicate name', () => {
    const tool = (formToTool(form) as { tool: CustomToolConfig }).tool;
    const added = configWithTool('{"replyDebounceSeconds": 0}', null, tool);
    expect(JSON.parse((added as { text: string }).text)).toEqual({ replyDebounceSeconds: 0, tools: [tool] });
    const text = (added as { text: string }).text;
    expect(configWithTool(text, null, tool)).toEqual({ problem: 'Another tool is already named order_status.' });
    expect(JSON.parse((configWithTool(text, 0, { ...tool, description: 'New.' }) as { text: string }).text).tools).toEqual([{ ...tool, description: 'New.' }]);
    expect(configWithTool('{oops', null, tool)).toEqual({ problem: expect.stringContaining('not valid JSON') });
  });
});
