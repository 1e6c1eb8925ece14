import path from 'node:path';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import mammoth from 'mammoth';
import { marked } from 'marked';
import Papa from 'papaparse';
import { extractText, getDocumentProxy } from 'unpdf';

/** Most pages read from one PDF (issue 21 "size and page limits with clear messages"). */
export const PDF_MAX_PAGES = 1000;

/** One retrievable unit of a document before chunking: a CSV row, or the whole text of another format. */
export interface DocumentSection {
  title?: string;
  text: string;
  /** The page a website section was read from. */
  url?: string;
}

export type DocumentKind = 'pdf' | 'docx' | 'markdown' | 'text' | 'html' | 'csv';

const BY_EXTENSION: Record<string, DocumentKind> = {
  '.pdf': 'pdf',
  '.docx': 'docx',
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.txt': 'text',
  '.text': 'text',
  '.html': 'html',
  '.htm': 'html',
  '.csv': 'csv',
};

/** The format of an uploaded file by its name, or null when it is none the knowledge base reads. */
export function documentKind(fileName: string): DocumentKind | null {
  return BY_EXTENSION[path.extname(fileName).toLowerCase()] ?? null;
}

export class DocumentError extends Error {}

/** Reads a document into sections with kept libraries (unpdf, mammoth, marked, Readability, Papa Parse). */
export async function parseDocument(kind: DocumentKind, bytes: Buffer): Promise<DocumentSection[]> {
  switch (kind) {
    case 'pdf':
      return [{ text: await pdfText(bytes) }];
    case 'docx':
      return [{ text: (await mammoth.extractRawText({ buffer: bytes })).value }];
    case 'markdown':
      return [{ text: htmlToText(await marked.parse(bytes.toString('utf8'))) }];
    case 'text':
      return [{ text: bytes.toString('utf8') }];
    case 'html':
      return [mainContent(bytes.toString('utf8'))];
    case 'csv':
      return csvRows(bytes.toString('utf8'));
  }
}

async function pdfText(bytes: Buffer): Promise<string> {
  let pdf;
  try {
    pdf = await getDocumentProxy(new Uint8Array(bytes));
  } catch {
    throw new DocumentError('The PDF could not be read (damaged or not a PDF).');
  }
  if (pdf.numPages > PDF_MAX_PAGES) {
    throw new DocumentError(`The PDF has ${pdf.numPages} pages; at most ${PDF_MAX_PAGES} are read.`);
  }
  const { text } = await extractText(pdf, { mergePages: false });
  return text.join('\n\n');
}

/** Text of an HTML fragment, block elements kept apart as paragraphs. */
function htmlToText(html: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  for (const block of document.querySelectorAll('p, li, h1, h2, h3, h4, h5, h6, tr, pre, blockquote, div, br')) {
    block.after(document.createTextNode('\n\n'));
  }
  return document.body.textContent ?? '';
}

/**
 * The main content of a page (Readability: no menus, footers or sidebars) with the page title; falls back to
 * the body's text when Readability finds no article.
 */
export function mainContent(html: string): DocumentSection {
  const { document } = parseHTML(html);
  const title = document.querySelector('title')?.textContent?.trim() || undefined;
  const article = new Readability(document as unknown as Document).parse();
  if (article?.content) return { title: article.title?.trim() || title, text: htmlToText(article.content) };
  const fallback = parseHTML(html).document;
  for (const noise of fallback.querySelectorAll('script, style, nav, header, footer, aside')) noise.remove();
  return { title, text: htmlToText(fallback.body?.innerHTML ?? '') };
}

/** One section per CSV row ("Header: value" lines): a row is one fact. */
function csvRows(csv: string): DocumentSection[] {
  const parsed = Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: 'greedy' });
  if (parsed.data.length === 0 && parsed.errors.length > 0) {
    throw new DocumentError(`The CSV could not be read: ${parsed.errors[0].message}`);
  }
  return parsed.data.map((row) => ({
    text: Object.entries(row)
      .filter(([key, value]) => key && typeof value === 'string' && value.trim())
      .map(([key, value]) => `${key.trim()}: ${String(value).trim()}`)
      .join('\n'),
  }));
}
