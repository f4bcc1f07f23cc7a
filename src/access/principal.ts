/** Who a data-API request acts for, once its credentials are checked. */
export interface Principal {
  accountId: number;
  /** OAuth client id (CId.…) when the credential is an access token; null for API keys. */
  clientId: string | null;
  scopes: ReadonlySet<string>;
  /** How the request authenticated: 'bearer' | 'dpop' | 'apikey'. */
  via: 'bearer' | 'dpop' | 'apikey';
  /** Digest identifying the credential (for caches and revocation); never the secret itself. */
  credentialDigest: string;
}
