/**
 * A request that fails its schema, said in words a user understands (issue 24 item 8): "Page: must be at least
 * 1", never "Invalid request (querystring): page: Too small: expected number to be >=1". A message the schema
 * wrote for people (e.g. "Note must not be empty") is kept as it is.
 */
export function validationWords(problems: readonly { field: string; message: string }[]): string {
  const sentences = problems.map(({ field, message }) => {
    const words = plainMessage(message);
    if (!field || words.text.includes(field.split('.').pop()!)) return capitalise(words.text);
    // A schema's short remark ("no such id"): after the field's name.
    if (!words.generic && /^[a-z]/.test(words.text)) return `${capitalise(fieldWords(field))}: ${words.text}`;
    // The schema's own sentence names its field already.
    if (!words.generic) return capitalise(words.text);
    return `${capitalise(fieldWords(field))} ${words.text}`;
  });
  const text = [...new Set(sentences)].join('. ');
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** "phaseCount" → "phase count", "fields.0.name" → "fields 1 name". */
function fieldWords(field: string): string {
  return field
    .split('.')
    .map((part) => (/^\d+$/.test(part) ? String(Number(part) + 1) : part.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replaceAll('_', ' ').toLowerCase()))
    .join(' ');
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const TYPE_WORDS: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  date: 'a date',
};

/** Zod's generic messages turned into "must …" words; any other message is the schema's own sentence. */
function plainMessage(message: string): { text: string; generic: boolean } {
  let m = /^Too small: expected (\w+) to have >=?(\d+) (items|characters)/.exec(message);
  if (m) return { text: `must have at least ${m[2]} ${m[2] === '1' ? m[3].replace(/s$/, '') : m[3]}`, generic: true };
  m = /^Too big: expected (\w+) to have <=?(\d+) (items|characters)/.exec(message);
  if (m) return { text: `must have at most ${m[2]} ${m[3]}`, generic: true };
  m = /^Too small: expected (\w+) to be (>=?)(\S+)/.exec(message);
  if (m) return { text: m[2] === '>' ? `must be more than ${m[3]}` : `must be at least ${m[3]}`, generic: true };
  m = /^Too big: expected (\w+) to be (<=?)(\S+)/.exec(message);
  if (m) return { text: m[2] === '<' ? `must be less than ${m[3]}` : `must be at most ${m[3]}`, generic: true };
  m = /^Invalid option: expected one of (.+)$/.exec(message);
  if (m) return { text: `must be one of ${m[1].split('|').map((o) => o.replaceAll('"', '')).join(', ')}`, generic: true };
  m = /^Invalid input: expected (\w+), received (\w+)/.exec(message);
  if (m) return { text: m[2] === 'undefined' ? 'is required' : `must be ${TYPE_WORDS[m[1]] ?? m[1]}`, generic: true };
  m = /^Invalid [\w ]+$/.exec(message);
  if (m || message === 'Invalid input') return { text: 'is not valid', generic: true };
  if (/^Unrecognized key/.test(message)) return { text: `${message.replace(/^Unrecognized keys?: /, 'unknown field ')} is not accepted`, generic: false };
  if (/^must /.test(message)) return { text: message, generic: true };
  return { text: message, generic: false };
}

/**
 * The server's validation answer ("Invalid request (querystring): page: Too small: …; limit: …", plugins/
 * error-handler.ts) in words for a person; any other text is answered as it is.
 */
export function validationErrorWords(text: string): string {
  const whole = /^Invalid request(?: \(\w+\))?: (.*)$/s.exec(text);
  if (!whole) return text;
  const problems = whole[1].split('; ').map((part) => {
    const named = /^([a-z_][\w.]*): (.*)$/s.exec(part);
    return named ? { field: named[1], message: named[2] } : { field: '', message: part };
  });
  return validationWords(problems);
}
