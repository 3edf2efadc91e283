/**
 * What pkgcat prints while it runs, as events: each has a level, an event name (`serve.listening`,
 * `build.done`, `http.request`, ...), a one-line message and a few fields. Two formats
 * (docs/deployment.md "Logs"):
 *
 * - `json`: one JSON object per line on stderr, through pino: `{"level":"info","time":"...",
 *   "pid":1,"event":"serve.listening","msg":"serving ... on http://...","url":"http://..."}`;
 * - `text`: the message alone, as a person reads it on a terminal (`pkgcat: serving ...`).
 *
 * Passwords, cookies and session ids never reach a log line: no caller passes them, and the
 * JSON format censors the fields that would hold them anyway (REDACTED_FIELDS), except in the
 * access log's lines, whose fields are the gateway's own (Logger.access).
 *
 * The process has one log (`log`), set up once by cli/main.ts from `--log-format`; until then
 * (and in tests that never set it up) it prints text.
 */
import pino from 'pino';

export type LogFormat = 'json' | 'text';
export type LogLevel = 'info' | 'warn' | 'error' | 'fatal';
export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  info(event: string, message: string, fields?: LogFields): void;
  warn(event: string, message: string, fields?: LogFields): void;
  error(event: string, message: string, fields?: LogFields): void;
  fatal(event: string, message: string, fields?: LogFields): void;
  /**
   * The access log's line (`http.request`, at info). Its fields are the gateway's own
   * (gateway/observe.ts AccessEntry: route, status, bytes, duration, request id), none named like
   * a secret, so the JSON format does not look for one in them: censoring nested fields cost 15 to
   * 18 µs a line, as much as the gateway takes to answer a small request.
   */
  access(message: string, fields: LogFields): void;
}

/** The event of the access log's lines. */
const ACCESS_EVENT = 'http.request';

/** Fields that must never be printed, wherever a caller puts them: censored in the JSON format (the access log's excepted: Logger.access). */
export const REDACTED_FIELDS = ['password', 'cookie', 'cookies', 'session', 'sessionId', 'sid', 'secret', 'authorization'] as const;

function textLogger(write: (line: string) => void): Logger {
  return lineLogger((message) => write(`pkgcat: ${message}\n`));
}

function jsonLogger(destination: pino.DestinationStream): Logger {
  const logger = pino(
    {
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      messageKey: 'msg',
      redact: { paths: REDACTED_FIELDS.flatMap((field) => [field, `*.${field}`]), censor: '[redacted]' },
    },
    destination,
  );
  const at = (level: LogLevel) => (event: string, message: string, fields: LogFields = {}) => logger[level]({ ...fields, event }, message);
  const uncensored = logger.child({}, { redact: [] });
  return { info: at('info'), warn: at('warn'), error: at('error'), fatal: at('fatal'), access: (message, fields) => uncensored.info({ ...fields, event: ACCESS_EVENT }, message) };
}

/** A log that hands each message to `take` (tests collect lines with it). */
export function lineLogger(take: (message: string) => void): Logger {
  return { info: (_event, message) => take(message), warn: (_event, message) => take(message), error: (_event, message) => take(message), fatal: (_event, message) => take(message), access: (message) => take(message) };
}

/**
 * A log in `format` writing to stderr (or `write`, for tests). The JSON format writes without
 * waiting: a synchronous write to a pipe (a container's log driver, a supervisor) cost 80 µs a
 * line, more than answering a small request; lines that come while one is written go out with it.
 * pino writes what is left when the process exits (`process.exit`, a crash), so only a SIGKILL
 * loses lines, the few of one write. The text format, for a person at a terminal, stays
 * synchronous.
 */
export function createLogger(format: LogFormat, write?: (line: string) => void): Logger {
  if (format === 'text') return textLogger(write ?? ((line) => process.stderr.write(line)));
  return jsonLogger(write ? { write } : pino.destination({ dest: 2, sync: false }));
}

let current: Logger = createLogger('text');
let currentFormat: LogFormat = 'text';

/** Sets the process's log (cli/main.ts, once, from `--log-format`). */
export function configureLog(format: LogFormat): void {
  current = createLogger(format);
  currentFormat = format;
}

/** The format the process logs in (the builds `serve` starts are given the same). */
export function logFormat(): LogFormat {
  return currentFormat;
}

/** The process's log. */
export const log: Logger = {
  info: (event, message, fields) => current.info(event, message, fields),
  warn: (event, message, fields) => current.warn(event, message, fields),
  error: (event, message, fields) => current.error(event, message, fields),
  fatal: (event, message, fields) => current.fatal(event, message, fields),
  access: (message, fields) => current.access(message, fields),
};
