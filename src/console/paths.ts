/**
 * Every path of the console's pages, by area: account, credentials, clients, webhooks and service pages
 * (`paths`), the live view (`livePaths`) and the administration (`adminPaths`).
 */

export const paths = {
  root: '/',
  signin: '/account/signin',
  signout: '/account/signout',
  signup: '/account/signup',
  account: '/account',
  password: '/account/password',
  lang: '/account/lang',
  revoke: '/account/authorizations/:id/revoke',
  keys: '/account/keys',
  keyRevoke: '/account/keys/:id/revoke',
  clients: '/account/clients',
  clientNew: '/account/clients/new',
  client: '/account/clients/:id',
  clientSecret: '/account/clients/:id/secret',
  clientDelete: '/account/clients/:id/delete',
  webhooks: '/account/webhooks',
  webhookNew: '/account/webhooks/new',
  webhook: '/account/webhooks/:id',
  webhookTest: '/account/webhooks/:id/test',
  webhookRedeliver: '/account/webhooks/:id/redeliver',
  webhookRecover: '/account/webhooks/:id/recover',
  webhookEnable: '/account/webhooks/:id/enable',
  webhookDisable: '/account/webhooks/:id/disable',
  webhookSecret: '/account/webhooks/:id/secret',
  webhookEdit: '/account/webhooks/:id/edit',
  webhookDelete: '/account/webhooks/:id/delete',
  contracts: '/account/contracts',
  sessions: '/account/sessions',
  sessionClose: '/account/sessions/:id/close',
} as const;

export const pathOf = (template: string, id: number) => template.replace(':id', String(id));

/** The live view, event and telegram pages and their assets. */
export const livePaths = {
  live: '/console/live',
  events: '/console/live/events',
  telegram: '/console/telegrams/:serial',
  body: '/console/telegrams/:serial/body',
  quake: '/console/earthquakes/:eventId',
  script: '/console/assets/live.js',
  style: '/console/assets/live.css',
} as const;

/** The administration pages (administrator accounts only). */
export const adminPaths = {
  status: '/console/admin',
  ingest: '/console/admin/ingest',
  accounts: '/console/admin/accounts',
  disable: '/console/admin/accounts/:id/disable',
  limit: '/console/admin/accounts/:id/limit',
  invite: '/console/admin/invite',
  scenario: '/console/admin/scenario',
} as const;
