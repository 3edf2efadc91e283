/**
 * A free TCP port on loopback, for servers a benchmark or a test starts itself (nginx, redis-server).
 * bench/helpers/ is shared by the benchmarks and the tests: tests/ may import bench/, never the reverse.
 */
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
