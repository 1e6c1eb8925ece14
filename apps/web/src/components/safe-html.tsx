import DOMPurify from 'dompurify';
import { useMemo } from 'react';

/** Renders admin-configured HTML with scripts, event handlers and javascript: URLs removed. */
export function SafeHtml({ html, ...rest }: { html: string } & React.HTMLAttributes<HTMLDivElement>) {
  const clean = useMemo(() => DOMPurify.sanitize(html, { USE_PROFILES: { html: true } }), [html]);
  return <div {...rest} dangerouslySetInnerHTML={{ __html: clean }} />;
}
