import FindMyWay from 'find-my-way';

/**
 * Remembers which methods each registered route path answers, so a request for a known path with
 * another method gets 405 instead of 404.
 */
export class MethodTable {
  private readonly router = FindMyWay();
  private readonly seen = new Set<string>();

  add(method: string, url: string): void {
    const key = `${method} ${url}`;
    // HEAD mirrors GET, and OPTIONS is the catch-all CORS preflight route: neither says a path exists.
    if (this.seen.has(key) || method === 'HEAD' || method === 'OPTIONS') return;
    this.seen.add(key);
    this.router.on(method as 'GET', url, () => {});
  }

  /** True when some method is routed for this path. */
  knows(path: string): boolean {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const) {
      if (this.router.find(method, path)) return true;
    }
    return false;
  }
}
