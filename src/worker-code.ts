/**
 * The code a worker thread or a `node -e` process evaluates to load one of Namazu's worker modules
 * (neither inherits a loader): the bundle's JavaScript beside the caller (scripts/build.js builds
 * each worker module as an entry of its own), or, from the TypeScript sources, the module's
 * TypeScript with the TypeScript loader registered first. `callerUrl` is the caller's
 * `import.meta.url`; `stem` the worker module's name beside it, without its extension.
 */
export function workerLoadCode(callerUrl: string, stem: string): string {
  const fromSources = callerUrl.endsWith('.ts');
  const code = JSON.stringify(new URL(`./${stem}${fromSources ? '.ts' : '.js'}`, callerUrl).href);
  return fromSources
    ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => (register(), import(${code})))`
    : `import(${code})`;
}
