import { boundedRequest } from './bounded-fetch.ts';

/** How the relay proves itself to the upstream: an API key, or an OAuth confidential client. */
export type UpstreamCredential =
  { apiKey: string } | { clientId: string; clientSecret: string; tokenUrl: string | null };

/** Renews an access token this long before the upstream says it expires. */
const EARLY_RENEWAL_MS = 60_000;
/** A token answer is a few hundred bytes. */
const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;

/**
 * The Authorization header for upstream requests. With client credentials, a token is obtained
 * from the token endpoint (client_secret_basic) for the scopes the relay needs, kept until shortly
 * before it expires, and dropped on `invalidate()` (after a 401).
 */
export class UpstreamAuth {
  private token: { value: string; expiresAt: number } | null = null;

  constructor(
    private readonly baseUrl: string,
    private readonly credential: UpstreamCredential,
    private readonly scopes: readonly string[],
    private readonly timeoutMs: number,
  ) {}

  async header(): Promise<string> {
    const c = this.credential;
    if ('apiKey' in c) return `Basic ${Buffer.from(`${c.apiKey}:`).toString('base64')}`;
    if (!this.token || this.token.expiresAt <= Date.now()) this.token = await this.requestToken(c);
    return `Bearer ${this.token.value}`;
  }

  invalidate(): void {
    this.token = null;
  }

  private async requestToken(c: Extract<UpstreamCredential, { clientId: string }>) {
    const url = c.tokenUrl ?? new URL('/account/oauth2/v1/token', this.baseUrl).toString();
    const basic = Buffer.from(`${encodeURIComponent(c.clientId)}:${encodeURIComponent(c.clientSecret)}`);
    const res = await boundedRequest({
      url,
      method: 'POST',
      headers: {
        authorization: `Basic ${basic.toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: this.scopes.join(' '),
      }).toString(),
      maxBytes: MAX_TOKEN_ANSWER_BYTES,
      timeoutMs: this.timeoutMs,
    });
    const body = parseJson(res.body);
    if (res.status !== 200 || typeof body?.access_token !== 'string')
      throw new Error(`token request refused: HTTP ${res.status} ${String(body?.error ?? '')}`.trim());
    const lifetimeS = typeof body.expires_in === 'number' ? body.expires_in : 3600;
    return { value: body.access_token, expiresAt: Date.now() + lifetimeS * 1000 - EARLY_RENEWAL_MS };
  }
}

type TokenAnswer = { access_token?: unknown; expires_in?: unknown; error?: unknown } | null;

function parseJson(body: Buffer): TokenAnswer {
  try {
    return JSON.parse(body.toString('utf8')) as TokenAnswer;
  } catch {
    return null;
  }
}

/** The scopes the relay needs: start a socket, list and read telegrams, and each classification's. */
export function relayScopes(classifications: readonly string[]): string[] {
  const classScopes = classifications.map((c) => {
    const [family, kind] = c.split('.');
    return `${family}.get.${kind}`;
  });
  return ['socket.start', 'telegram.list', 'telegram.data', ...classScopes];
}
