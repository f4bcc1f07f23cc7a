/**
 * The admin channel of a server on an embedded data directory (docs/architecture.md, "Admin
 * commands beside a running server"): a Unix domain socket `namazu.sock` in the data directory,
 * mode 0600, so only the directory's owner can connect. One command per connection, as
 * newline-delimited JSON: the caller writes one AdminRequest line; the server runs the command,
 * sends what it prints as it prints it (AdminOutput lines, so that a long command's progress shows
 * at once), then its exit status as the last line, and closes.
 */
import { join } from 'node:path';

export interface AdminRequest {
  /** An admin command: account, apikey, client, contract, ingest or convert. */
  command: string;
  argv: string[];
  /** The caller's working directory: relative paths are resolved against it. */
  cwd: string;
}

/** One line from the server: something the command printed, or its exit status (the last line). */
export type AdminOutput = { stdout: string } | { stderr: string } | { code: number };

/** A request line longer than this is refused (a command line is far shorter). */
export const MAX_REQUEST_BYTES = 1024 * 1024;
/** A connection that has not sent its whole request line within this is closed. */
export const REQUEST_TIMEOUT_MS = 5000;

export function adminSocketPath(dataDir: string): string {
  return join(dataDir, 'namazu.sock');
}
