/**
 * The metrics listener (`serve --metrics-port`): `GET /metrics` in the Prometheus text format, and
 * nothing else. A listener of its own, not a path of the gateway's: whatever the proxy in front of
 * the gateway forwards, and whatever a static host serves from a release, never includes it; the
 * address it binds (`--metrics-host`, loopback by default) keeps it off the public interface.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayMetrics } from './metrics.ts';

export const METRICS_PATH = '/metrics';

export interface MetricsServer {
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  close(): Promise<void>;
}

/** Listens on `host:port` (0 picks a free one); rejects with the system's error (EADDRINUSE, ...). */
export async function startMetricsServer(metrics: GatewayMetrics, host: string, port: number): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const answer = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', 'Content-Length': String(Buffer.byteLength(body)), ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (path !== METRICS_PATH) return answer(404, 'text/plain; charset=utf-8', `Not found: this listener answers GET ${METRICS_PATH} only.\n`);
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(405, 'text/plain; charset=utf-8', `${METRICS_PATH} answers GET and HEAD only.\n`, { Allow: 'GET, HEAD' });
    metrics.exposition().then(
      ({ body, contentType }) => answer(200, contentType, body),
      (error: unknown) => answer(500, 'text/plain; charset=utf-8', `The metrics could not be collected: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
