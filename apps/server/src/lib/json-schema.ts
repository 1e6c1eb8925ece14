import { Ajv, type ValidateFunction } from 'ajv';

/**
 * JSON Schema for what an ADMIN declares (a custom tool's parameters, issue 22): compiled once per schema
 * text, so the arguments a model writes are checked before any call leaves the server.
 */
const ajv = new Ajv({ allErrors: false, strict: false });
const compiled = new Map<string, ValidateFunction>();

function compile(schema: object): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    if (compiled.size > 500) compiled.clear();
    compiled.set(key, validate);
  }
  return validate;
}

/** Why `schema` is not a usable JSON Schema, or null. */
export function jsonSchemaProblem(schema: object): string | null {
  try {
    compile(schema);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** Why `value` does not match `schema` (one sentence), or null. */
export function jsonSchemaMismatch(schema: object, value: unknown): string | null {
  const validate = compile(schema);
  if (validate(value)) return null;
  const first = validate.errors?.[0];
  return first ? `${first.instancePath || '(arguments)'} ${first.message ?? 'is invalid'}` : 'the arguments do not match the schema';
}
