import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../shared/errors.js';

/**
 * /swagger/doc.json (the OpenAPI 3 document built from the route schemas) and an interactive
 * reference at /swagger/index.html whose assets come from the installed swagger-ui bundle,
 * so it works offline. /swagger redirects there (docs/api.md §4.8).
 */
export function registerSwaggerRoutes(app: FastifyInstance): void {
  const assets = loadSwaggerUiAssets();

  app.get('/swagger/doc.json', { schema: { hide: true } }, async (_request, reply) => {
    void reply.header('content-type', 'application/json');
    return JSON.stringify(app.swagger());
  });

  app.get('/swagger', { schema: { hide: true } }, async (request, reply) => {
    const forwarded = request.headers['x-forwarded-prefix'];
    const prefix = typeof forwarded === 'string' ? forwarded.replace(/\/$/, '') : '';
    return reply.redirect(`${prefix}/swagger/index.html`, 301);
  });

  app.get('/swagger/index.html', { schema: { hide: true } }, async (_request, reply) => {
    void reply.header('content-type', 'text/html; charset=utf-8');
    return INDEX_HTML;
  });

  app.get('/swagger/:asset', { schema: { hide: true } }, async (request, reply) => {
    const name = (request.params as { asset: string }).asset;
    const asset = assets.get(name);
    if (!asset) throw new NotFoundError('not_found', `Cannot GET ${request.url.split('?', 1)[0] ?? ''}`);
    void reply.header('content-type', asset.type);
    return asset.content;
  });
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

function loadSwaggerUiAssets(): Map<string, { content: Buffer; type: string }> {
  const require = createRequire(import.meta.url);
  const dir = path.join(path.dirname(require.resolve('@fastify/swagger-ui/package.json')), 'static');
  const assets = new Map<string, { content: Buffer; type: string }>();
  for (const file of readdirSync(dir)) {
    const type = CONTENT_TYPES[path.extname(file)];
    if (type) assets.set(file, { content: readFileSync(path.join(dir, file)), type });
  }
  return assets;
}

// Tag order of the reference; `App` (status) is not listed and so sorts first.
const INDEX_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<title>rollup-indexer API</title>
<link rel="stylesheet" type="text/css" href="swagger-ui.css">
<link rel="icon" type="image/png" href="favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="swagger-ui-bundle.js" charset="UTF-8"></script>
<script src="swagger-ui-standalone-preset.js" charset="UTF-8"></script>
<script>
window.onload = function () {
  var order = ['Block', 'Tx', 'EVM Tx', 'EVM Internal Tx', 'NFT', 'Rich List'];
  window.ui = SwaggerUIBundle({
    url: 'doc.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
    tagsSorter: function (a, b) { return order.indexOf(a) - order.indexOf(b); }
  });
};
</script>
</body>
</html>
`;
