/**
 * A static file server for the built site, on a port the system picks (so two checks, or a check beside
 * anything else, never collide). It resolves paths the way a static host serves VitePress's output with
 * cleanUrls off: `/` and `/x/` are index.html, `/x` is x.html when that exists, anything else is 404.html
 * with status 404.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The file a URL path is served from, or undefined for a 404. */
export function resolveFile(dir: string, urlPath: string): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(urlPath.split(/[?#]/)[0] ?? '/');
  } catch {
    return undefined;
  }
  const full = normalize(join(dir, path));
  if (full !== dir && !full.startsWith(dir + sep)) return undefined;
  const candidates = path.endsWith('/') ? [join(full, 'index.html')] : [full, `${full}.html`, join(full, 'index.html')];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

/** A running server and its address (`http://127.0.0.1:PORT`). */
export interface StaticServer {
  readonly origin: string;
  close(): Promise<void>;
}

export async function serveStatic(dir: string): Promise<StaticServer> {
  const server: Server = createServer((request, response) => {
    const file = resolveFile(dir, request.url ?? '/');
    const notFound = join(dir, '404.html');
    const status = file === undefined ? 404 : 200;
    const body = file ?? (existsSync(notFound) ? notFound : undefined);
    response.writeHead(status, {
      'content-type': body === undefined ? 'text/plain' : (TYPES[extname(body)] ?? 'application/octet-stream'),
      // VitePress's assets have content hashes in their names: the browser keeps them across pages, as a CDN would let it.
      'cache-control': file?.startsWith(join(dir, 'assets') + sep) ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    response.end(body === undefined ? 'not found' : request.method === 'HEAD' ? undefined : readFileSync(body));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
