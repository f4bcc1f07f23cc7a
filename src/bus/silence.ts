/** How often a bus's listening connection is asked whether it still answers. */
export const SILENCE_CHECK_MS = 3000;
/**
 * A bus connection's attempt (its handshake included), and a publish, given up after this long:
 * behind a network that drops what passes, a connection is accepted and never answered, and would
 * be waited for until the process restarts.
 */
export const BUS_CONNECT_TIMEOUT_MS = 5000;

/**
 * Asks a listening connection every SILENCE_CHECK_MS whether it still answers (`ask`), and calls
 * `silent` when the previous question has had no answer by the next time: a connection whose peer
 * went silent (a NAT or firewall that forgot it, a host gone) brings neither an error nor an end,
 * and would otherwise never hear another message. Decided after that turn's I/O is read, so that
 * an answer that came while the event loop was busy counts. Nothing is asked while `ready()` is
 * false (the connection is being replaced). Returns the stop.
 */
export function checkSilence(
  ask: () => Promise<unknown>,
  ready: () => boolean,
  silent: () => void,
): () => void {
  let unanswered = false;
  const checks = setInterval(() => {
    if (!ready()) return void (unanswered = false);
    if (unanswered)
      return void setImmediate(() => {
        if (!unanswered || !ready()) return;
        unanswered = false;
        silent();
      });
    unanswered = true;
    // A failed question is the connection's own events' to report.
    const answered = () => (unanswered = false);
    ask().then(answered, answered);
  }, SILENCE_CHECK_MS);
  checks.unref();
  return () => clearInterval(checks);
}
