import { describe, expect, it } from 'vitest';
import { jsonProblem, requireJsonObject } from './json-config-editor.tsx';

describe('jsonProblem (spec §5: config text must parse as JSON before it is sent)', () => {
  it('accepts any JSON without a validator', () => {
    expect(jsonProblem('{"a": 1}')).toBeNull();
    expect(jsonProblem('"GHL"')).toBeNull();
    expect(jsonProblem('[1]')).toBeNull();
  });
  it('names a parse failure', () => {
    expect(jsonProblem('{"a":')).toMatch(/^Invalid JSON: /);
    expect(jsonProblem('')).toMatch(/^Invalid JSON: /);
  });
  it('applies the extra check to the parsed value', () => {
    expect(jsonProblem('{}', requireJsonObject)).toBeNull();
    expect(jsonProblem('[1]', requireJsonObject)).toBe('The configuration must be a JSON object, e.g. {}');
    expect(jsonProblem('null', requireJsonObject)).toBe('The configuration must be a JSON object, e.g. {}');
  });
});
