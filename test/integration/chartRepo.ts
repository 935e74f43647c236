/**
 * What the chart integration tests share: ../shared/charts/repo served as an HTTP chart repository
 * on loopback (its index's placeholder host `charts.invalid` rewritten to the server's), and a
 * bootstrapped workspace written to disk.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';

/** Serves `dir` (index.yaml and the .tgz files) on a free loopback port; `base` is `127.0.0.1:PORT`. */
export async function serveChartRepo(dir: string): Promise<{ base: string; close: () => Promise<void> }> {
  let base = '';
  const server = http.createServer((req, res) => {
    const name = (req.url ?? '/').slice(1);
    if (name === 'index.yaml') return void res.end(fs.readFileSync(path.join(dir, 'index.yaml'), 'utf8').split('http://charts.invalid/').join(`http://${base}/`));
    if (/^[a-z0-9.-]+\.tgz$/.test(name) && fs.existsSync(path.join(dir, name))) return void res.end(fs.readFileSync(path.join(dir, name)));
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Writes `text` at `rel` under `root`, folders made. */
export function writeAt(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

/** The flux-system GitRepository of `url` and the Kustomization syncing `./<clusterPath>`, as `flux bootstrap` writes them. */
export function gotkSyncYaml(clusterPath: string, url: string): string {
  return `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 1m0s
  ref:
    branch: main
  url: ${url}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m0s
  path: ./${clusterPath}
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`;
}
