/** The audit lists' paging (issue 23): 50 rows a page, filtered by part of an address. */
export const AUDIT_PAGE_SIZE = 50;

export interface AuditFilter {
  address: string;
  page: number;
}

/** The query of GET /api/admin/compliance/opt-outs and …/consents for a filter. */
export const auditParams = (filter: AuditFilter): Record<string, string> => ({
  ...(filter.address.trim() ? { address: filter.address.trim() } : {}),
  limit: String(AUDIT_PAGE_SIZE),
  offset: String((filter.page - 1) * AUDIT_PAGE_SIZE),
});
