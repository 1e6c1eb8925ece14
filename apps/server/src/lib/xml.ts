const ENTITIES: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' };

/** Text or an attribute value made safe inside hand-written XML (SSML, TwiML): the five predefined entities. */
export const escapeXml = (text: string): string => text.replace(/[<>&'"]/g, (c) => ENTITIES[c]!);
