/** The administration pages (administrator accounts only). */
export const adminPaths = {
  status: '/console/admin',
  ingest: '/console/admin/ingest',
  accounts: '/console/admin/accounts',
  disable: '/console/admin/accounts/:id/disable',
  invite: '/console/admin/invite',
  scenario: '/console/admin/scenario',
} as const;
