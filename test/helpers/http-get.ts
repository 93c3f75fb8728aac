import http from 'node:http';

/**
 * A GET's body on a connection of its own. A pooled keep-alive connection can meet the server's
 * idle close as the request leaves, or belong to a process that restarted on the same port
 * (ECONNRESET on a loaded machine), so tests that poll or restart reuse no connection.
 */
export function getTextOnNewConnection(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}
