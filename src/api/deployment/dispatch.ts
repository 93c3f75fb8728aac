import type { ChainDirectory, RequestHandler } from './directory.js';

/**
 * The deployment's router in front of every chain's API (docs/chains.md §2): `/chains/{id}/…` goes
 * to that chain's API with the prefix taken off, so its answers are the single-chain ones byte for
 * byte; the deployment's own routes (`/chains`, the account routes, `/health`, `/ready`,
 * `/metrics`) and every unknown or not-yet-serving chain go to the deployment app; other paths go
 * to the root chain when there is one.
 */
export function createDispatcher(directory: ChainDirectory, deployment: RequestHandler): RequestHandler {
  return (req, res) => {
    const url = req.url ?? '/';
    const target = chainTarget(url);
    if (target) {
      const handler = directory.get(target.chainId)?.handler();
      if (!handler) return deployment(req, res);
      // The chain's live page links relative to its base: `/chains/{id}` becomes `/chains/{id}/`.
      if (target.rest === '/' && !target.slash && (req.method === 'GET' || req.method === 'HEAD')) {
        res.writeHead(301, { location: `${target.prefix}/` }).end();
        return;
      }
      req.url = target.rest;
      // What the chain's API prefixes to links it sends back (the /swagger redirect).
      const outer = req.headers['x-forwarded-prefix'];
      req.headers['x-forwarded-prefix'] =
        `${typeof outer === 'string' ? outer.replace(/\/$/, '') : ''}${target.prefix}`;
      return handler(req, res);
    }
    const root = directory.rootChain?.handler();
    if (root && !isDeploymentPath(url)) return root(req, res);
    return deployment(req, res);
  };
}

const CHAIN_PREFIX = /^\/chains\/([^/?#]+)(.*)$/;

/** `/chains/{id}/rest` → the chain id (percent-decoded) and the rest as a root path. */
function chainTarget(
  url: string,
): { chainId: string; prefix: string; rest: string; slash: boolean } | undefined {
  const match = CHAIN_PREFIX.exec(url);
  if (!match) return undefined;
  let chainId: string;
  try {
    chainId = decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
  const rest = match[2]!;
  return {
    chainId,
    prefix: `/chains/${match[1]!}`,
    rest: rest.startsWith('/') ? rest : `/${rest}`,
    slash: rest.startsWith('/'),
  };
}

/** Routes the deployment itself answers even when a root chain serves the others. */
const DEPLOYMENT_PATHS = [
  /^\/chains\/?(\?|$)/i,
  /^\/indexer\/account\//i,
  /^\/indexer\/stream\/v1\/account\//i,
];
const DEPLOYMENT_WIDE = /^\/(health|ready|metrics)\/?(\?|$)/i;

function isDeploymentPath(url: string): boolean {
  return DEPLOYMENT_PATHS.some((re) => re.test(url)) || DEPLOYMENT_WIDE.test(url);
}
