import {
  REFRESH_ROTATIONS,
  type ClientType,
  type GrantType,
  type NewClient,
  type RefreshRotation,
} from './clients.ts';
import { parseLoopback } from './redirect-uris.ts';
import { isKnownScope, parseScopeList } from '../scopes.ts';
import { CodedError } from '../errors.ts';

/**
 * The rules a client registration must meet before `createClient` records it (docs/oauth.md
 * "Clients", "Redirect URIs"), whoever registers it: the `namazu client` command today, a console
 * later. A registration that breaks rules is refused with one RegistrationError naming every field
 * that breaks one, in the words of the caller's form (`label`).
 */

/** The fields of a registration, in the order forms show them. */
const REGISTRATION_FIELDS = [
  'name', 'type', 'redirectUris', 'grants', 'scopes', 'refreshRotation', 'contact', 'appUrl', 'termsUrl',
  'privacyUrl',
] as const; // prettier-ignore
export type RegistrationField = (typeof REGISTRATION_FIELDS)[number];

/** What a registration form submits, not yet checked. */
export interface RegistrationInput {
  name: string;
  type: string;
  redirectUris: readonly string[];
  grants: readonly string[];
  /** Space-separated scope list. */
  scopes: string;
  /** `default`, `on` or `off`; absent is `default`. */
  refreshRotation?: string;
  contact?: string;
  appUrl?: string;
  termsUrl?: string;
  privacyUrl?: string;
}

/** One broken rule: the field and what is wrong with it. */
export interface RegistrationProblem {
  field: RegistrationField;
  message: string;
}

/** Every field that breaks a rule, each with its first broken rule, in form order. */
export class RegistrationError extends CodedError {
  constructor(readonly problems: readonly RegistrationProblem[]) {
    super('CLIENT_REGISTRATION_REFUSED', { message: problems.map((p) => p.message).join('; ') });
  }

  /** The field of the first problem. */
  get field(): RegistrationField {
    return this.problems[0]!.field;
  }

  /** What is wrong with this field, if anything. */
  messageFor(field: RegistrationField): string | undefined {
    return this.problems.find((p) => p.field === field)?.message;
  }
}

export const GRANTS: readonly GrantType[] = ['authorization_code', 'refresh_token', 'client_credentials'];
export const MAX_NAME = 100;
export const MAX_CONTACT = 254;
export const MAX_REDIRECT_URIS = 20;
export const MAX_REDIRECT_URI_LENGTH = 2000;
const MAX_URL_LENGTH = 2000;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Why a URI cannot be registered, or null when it can: an absolute URI without fragment whose
 * scheme is `https`, `http` on a loopback host only (RFC 8252 §7.3), or a private-use scheme in
 * reverse-domain form such as `com.example.app:/cb` (RFC 8252 §7.1).
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length === 0 || uri.length > MAX_REDIRECT_URI_LENGTH) {
    return `must be 1 to ${MAX_REDIRECT_URI_LENGTH} characters`;
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f]/.test(uri)) return 'must not contain spaces or control characters';
  if (uri.includes('#')) return 'must not contain a fragment';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URI';
  }
  const scheme = uri.slice(0, uri.indexOf(':'));
  if (scheme === 'https') return url.hostname ? null : 'must name a host';
  if (scheme === 'http') {
    return parseLoopback(uri) ? null : 'may use http only with localhost or 127.x.x.x (use https otherwise)';
  }
  if (/^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/.test(scheme)) return null;
  return 'must use https, http on a loopback host, or a private-use scheme such as com.example.app';
}

type Label = (field: RegistrationField) => string;
/** Records a problem of a field (checkRegistration keeps the first of each). */
type Fail = (field: RegistrationField, message: string) => void;
type PageUrlField = 'appUrl' | 'termsUrl' | 'privacyUrl';

/** The grants' own rules and those they set on the client's type and redirect URIs. */
function checkGrants(
  grants: string[],
  type: string,
  redirectUriCount: number,
  label: Label,
  fail: Fail,
): void {
  if (grants.length === 0) fail('grants', `at least one ${label('grants')} is required`);
  for (const g of grants) {
    if (!GRANTS.includes(g as GrantType))
      fail('grants', `${label('grants')} must be one of ${GRANTS.join(', ')}, got "${g}"`);
  }
  if (type === 'public' && grants.includes('client_credentials')) {
    fail('grants', 'public clients cannot use the client_credentials grant');
  }
  if (grants.includes('refresh_token') && !grants.includes('authorization_code')) {
    fail(
      'grants',
      `${label('grants')} refresh_token needs ${label('grants')} authorization_code (refresh tokens come from it)`,
    );
  }
  if (grants.includes('authorization_code') && redirectUriCount === 0) {
    fail('redirectUris', `the authorization_code grant needs at least one ${label('redirectUris')}`);
  }
}

/** An optional http(s) URL of the client's pages, as given (null when absent). */
function checkedPageUrl(
  value: string | undefined,
  field: PageUrlField,
  label: Label,
  fail: Fail,
): string | null {
  if (value === undefined) return null;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || value.length > MAX_URL_LENGTH) {
    fail(field, `${label(field)} must be an http(s) URL, got "${value}"`);
  }
  return value;
}

/**
 * The registration `input` describes, ready for `createClient`, or a RegistrationError with the first
 * rule each field breaks. `label` names a field in messages (`--redirect-uri` for the command line).
 */
export function checkRegistration(input: RegistrationInput, label: Label): Omit<NewClient, 'accountId'> {
  const problems: RegistrationProblem[] = [];
  const broken = (field: RegistrationField) => problems.some((p) => p.field === field);
  /** Records a problem unless the field already has one (its first is the one shown). */
  const fail: Fail = (field, message) => {
    if (!broken(field)) problems.push({ field, message });
  };

  const name = input.name.trim();
  if (name.length === 0 || name.length > MAX_NAME || CONTROL.test(name)) {
    fail('name', `${label('name')} must be 1 to ${MAX_NAME} printable characters`);
  }
  const type = input.type;
  if (type !== 'confidential' && type !== 'public')
    fail('type', `${label('type')} must be confidential or public`);

  const redirectUris = [...new Set(input.redirectUris)];
  if (redirectUris.length > MAX_REDIRECT_URIS)
    fail('redirectUris', `at most ${MAX_REDIRECT_URIS} ${label('redirectUris')}`);
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) fail('redirectUris', `${label('redirectUris')} "${uri}" ${problem}`);
  }

  const grants = [...new Set(input.grants)];
  checkGrants(grants, type, redirectUris.length, label, fail);

  const scopes = parseScopeList(input.scopes);
  if (scopes.length === 0) fail('scopes', `${label('scopes')} must name at least one scope`);
  const unknown = scopes.filter((s) => !isKnownScope(s));
  if (unknown.length > 0) fail('scopes', `unknown scope(s): ${unknown.join(', ')}`);

  const refreshRotation = input.refreshRotation ?? 'default';
  if (!(REFRESH_ROTATIONS as readonly string[]).includes(refreshRotation)) {
    fail(
      'refreshRotation',
      `${label('refreshRotation')} must be one of ${REFRESH_ROTATIONS.join(', ')}, got "${refreshRotation}"`,
    );
  }

  const contact = input.contact;
  if (
    contact !== undefined &&
    (contact.trim().length === 0 || contact.length > MAX_CONTACT || CONTROL.test(contact))
  ) {
    fail('contact', `${label('contact')} must be 1 to ${MAX_CONTACT} printable characters`);
  }

  const pageUrl = (field: PageUrlField) => checkedPageUrl(input[field], field, label, fail);
  const appUrl = pageUrl('appUrl');
  const termsUrl = pageUrl('termsUrl');
  const privacyUrl = pageUrl('privacyUrl');
  if (problems.length > 0) {
    const rank = (p: RegistrationProblem) => REGISTRATION_FIELDS.indexOf(p.field);
    throw new RegistrationError(problems.sort((a, b) => rank(a) - rank(b)));
  }

  return {
    name,
    type: type as ClientType,
    redirectUris,
    grants: grants as GrantType[],
    scopes,
    refreshRotation: refreshRotation as RefreshRotation,
    contact: contact?.trim() ?? null,
    appUrl,
    termsUrl,
    privacyUrl,
  };
}
