/** `{name}` placeholders of a custom tool's URL template (issue 22). */
const PLACEHOLDER = /\{([a-zA-Z0-9_]+)\}/g;

/** The template with its placeholders filled from `args` (URL-encoded); the argument names it used. */
export function fillUrlTemplate(template: string, args: Record<string, unknown>): { url: string; used: Set<string> } {
  const used = new Set<string>();
  const url = template.replace(PLACEHOLDER, (_, name: string) => {
    used.add(name);
    const value = args[name];
    return value === undefined || value === null ? '' : encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value));
  });
  return { url, used };
}

/** The template with sample values, to check its host when the config is saved. */
export function exampleUrl(template: string): string {
  return template.replace(PLACEHOLDER, 'x');
}
