/**
 * The "Node ceiling" of the serving benchmark (bench/serve.ts): Express 5's bare `express.static`
 * over the same build output, with `express-session` (its MemoryStore) and a check that
 * `req.session.username` is set on the paths standing for the sha-pinned ones. No route table, no
 * sha resolution, no headers of ours: what serving these files with a session costs in Node.
 *
 *   node bench/bare-express.ts --out <dir> --export <dir> [--port 0]
 *
 *   POST /login                 sets req.session.username (no password: it is the session that costs)
 *   GET  /pinned/<path in out>  session check, then express.static(<out>)
 *   GET  /<path in public/>     express.static(<export>/public) (pkgcat export's tree), anonymous
 *
 * Prints `listening on http://127.0.0.1:<port>` on stderr once it serves.
 */
import express, { type RequestHandler } from 'express';
import session from 'express-session';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

declare module 'express-session' {
  interface SessionData {
    username?: string;
  }
}

const { values } = parseArgs({ options: { out: { type: 'string' }, export: { type: 'string' }, port: { type: 'string' } } });
if (!values.out || !values.export) {
  process.stderr.write('usage: node bench/bare-express.ts --out <dir> --export <dir> [--port 0]\n');
  process.exit(2);
}
const out = values.out;

const app = express();
app.disable('x-powered-by');
const sessions = session({
  name: 'bench.sid',
  secret: randomBytes(32).toString('hex'),
  resave: false,
  saveUninitialized: false,
  cookie: { httpOnly: true, sameSite: 'lax' },
});
const signedIn: RequestHandler = (req, res, next) => {
  if (typeof req.session.username === 'string') return next();
  res.status(401).json({ error: 'auth_required' });
};

app.post('/login', sessions, (req, res) => {
  req.session.username = 'bench';
  res.json({ ok: true });
});
app.use('/pinned', sessions, signedIn, express.static(out));
app.use(express.static(join(values.export, 'public')));

const server = app.listen(Number(values.port ?? 0), '127.0.0.1', () => {
  process.stderr.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
