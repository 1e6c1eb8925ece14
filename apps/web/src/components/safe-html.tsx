import DOMPurify from 'dompurify';
import { useMemo } from 'react';

/**
 * Renders admin-configured HTML with scripts, event handlers and javascript: URLs removed. Marked
 * `data-admin-html`: its accessibility is the admin's content, not the product's (the axe scan skips it).
 */
export function SafeHtml({ html, ...rest }: { html: string } & React.HTMLAttributes<HTMLDivElement>) {
  const clean = useMemo(() => DOMPurify.sanitize(html, { USE_PROFILES: { html: true } }), [html]);
  return <div {...rest} data-admin-html="" dangerouslySetInnerHTML={{ __html: clean }} />;
}
