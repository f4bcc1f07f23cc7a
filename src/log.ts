import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * JSON logs on stdout. Credentials never reach them: request logging records method, route and
 * status only, and these paths are redacted wherever an object carrying them is logged.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { pid: process.pid },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers.dpop',
        'headers.authorization',
        'headers.cookie',
        'password',
        'secret',
        'client_secret',
        'token',
        'key',
      ],
      censor: '[redacted]',
    },
  });
}
