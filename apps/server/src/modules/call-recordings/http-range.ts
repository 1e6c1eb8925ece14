/** A byte range of a file, both ends inclusive (as in Content-Range). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Reads a `Range` header against a file of `size` bytes (RFC 9110 §14.1.2). Answers `null` when the whole
 * file should be sent (no header, another unit, or several ranges — sending all is allowed), a range to
 * send as 206, or `'unsatisfiable'` for 416.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | null | 'unsatisfiable' {
  if (!header) return null;
  const match = /^\s*bytes\s*=\s*(.+)$/i.exec(header);
  if (!match) return null;
  const specs = match[1].split(',').map((s) => s.trim());
  if (specs.length !== 1) return null;
  const spec = /^(\d*)-(\d*)$/.exec(specs[0]);
  if (!spec || (spec[1] === '' && spec[2] === '')) return 'unsatisfiable';
  if (spec[1] === '') {
    const suffix = Number(spec[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(spec[1]);
  const end = spec[2] === '' ? size - 1 : Math.min(Number(spec[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}
