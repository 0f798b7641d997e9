/**
 * An HTTP proxy in front of a real ToolEnv server: forwards every request, except those a test makes fail, and records
 * them all.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FaultyProxy {
  url: string;
  /** `METHOD /path` of every request, in arrival order. */
  seen: string[];
  close(): Promise<void>;
}

/** Requests for which `fail(method, path)` holds are answered 500 (a problem+json) without reaching `target`. */
export async function faultyProxy(
  target: string,
  fail: (method: string, path: string) => boolean,
): Promise<FaultyProxy> {
  const seen: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const method = req.method!;
      const path = req.url!;
      seen.push(`${method} ${path}`);
      if (fail(method, path)) {
        res.writeHead(500, { 'content-type': 'application/problem+json' });
        res.end(
          JSON.stringify({ title: 'Internal Server Error', status: 500, detail: 'the proxy failed this request' }),
        );
        return;
      }
      const headers: Record<string, string> = {};
      for (const name of ['content-type', 'accept', 'authorization'])
        if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
      fetch(`${target}${path}`, { method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined })
        .then(async (response) => {
          res.writeHead(response.status, {
            'content-type': response.headers.get('content-type') ?? 'application/json',
          });
          res.end(Buffer.from(await response.arrayBuffer()));
        })
        .catch((error: unknown) => {
          res.writeHead(502);
          res.end(String(error));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
