/**
 * A synthetic Flux repository the size of a large organisation's: 10,000 files, 2,000 Flux
 * Kustomizations and 500 HelmReleases in one cluster, shaped like the home-ops corpora
 * (a `ks.yaml` per app next to its `app/` folder, grouped by namespace folders).
 */
export interface GeneratedRepo {
  files: Record<string, string>;
  kustomizations: number;
  helmReleases: number;
}

const GROUPS = 20;

export function generateRepo(): GeneratedRepo {
  const files: Record<string, string> = {};
  let kustomizations = 0;
  let helmReleases = 0;
  files['clusters/prod/flux-system/kustomization.yaml'] = 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - gotk-sync.yaml\n';
  files['clusters/prod/flux-system/gotk-sync.yaml'] = [
    'apiVersion: source.toolkit.fluxcd.io/v1',
    'kind: GitRepository',
    'metadata:',
    '  name: flux-system',
    '  namespace: flux-system',
    'spec:',
    '  interval: 1m',
    '  url: ssh://git@example.com/org/fleet',
    '  ref:',
    '    branch: main',
    '---',
    'apiVersion: kustomize.toolkit.fluxcd.io/v1',
    'kind: Kustomization',
    'metadata:',
    '  name: flux-system',
    '  namespace: flux-system',
    'spec:',
    '  interval: 10m',
    '  path: ./clusters/prod',
    '  prune: true',
    '  sourceRef:',
    '    kind: GitRepository',
    '    name: flux-system',
    '',
  ].join('\n');
  kustomizations++;
  const appsPerGroup = Math.floor((2000 - 1 - GROUPS) / GROUPS); // 98
  let appIndex = 0;
  for (let g = 0; g < GROUPS; g++) {
    const group = `g${String(g).padStart(2, '0')}`;
    files[`clusters/prod/${group}.yaml`] = ksYaml(group, 'flux-system', `./apps/${group}`, g > 0 ? [`g${String(g - 1).padStart(2, '0')}`] : [], undefined);
    kustomizations++;
    const entries: string[] = [];
    const count = g < (2000 - 1 - GROUPS) % GROUPS ? appsPerGroup + 1 : appsPerGroup;
    for (let a = 0; a < count; a++, appIndex++) {
      const app = `app-${appIndex}`;
      const dir = `apps/${group}/${app}`;
      entries.push(`./${app}/ks.yaml`);
      files[`${dir}/ks.yaml`] = ksYaml(app, undefined, `./${dir}/app`, a > 0 && a % 3 === 0 ? [`app-${appIndex - 1}`] : [], group);
      kustomizations++;
      const withHelm = helmReleases < 500 && appIndex % 4 === 0;
      const resources = withHelm ? ['helmrelease.yaml', 'ocirepository.yaml', 'service.yaml'] : ['deployment.yaml', 'service.yaml', 'configmap.yaml'];
      files[`${dir}/app/kustomization.yaml`] = `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n${resources.map((r) => `  - ./${r}`).join('\n')}\n`;
      files[`${dir}/app/service.yaml`] = serviceYaml(app);
      if (withHelm) {
        helmReleases++;
        files[`${dir}/app/helmrelease.yaml`] = helmReleaseYaml(app);
        files[`${dir}/app/ocirepository.yaml`] = ociYaml(app);
      } else {
        files[`${dir}/app/deployment.yaml`] = deploymentYaml(app);
        files[`${dir}/app/configmap.yaml`] = configMapYaml(app);
      }
    }
    files[`apps/${group}/kustomization.yaml`] = `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: ${group}\nresources:\n${entries.map((e) => `  - ${e}`).join('\n')}\n`;
  }
  return { files, kustomizations, helmReleases };
}

function ksYaml(name: string, namespace: string | undefined, path: string, dependsOn: string[], targetNamespace: string | undefined): string {
  return [
    'apiVersion: kustomize.toolkit.fluxcd.io/v1',
    'kind: Kustomization',
    'metadata:',
    `  name: ${name}`,
    ...(namespace ? [`  namespace: ${namespace}`] : []),
    'spec:',
    ...(dependsOn.length ? ['  dependsOn:', ...dependsOn.map((d) => `    - name: ${d}`)] : []),
    '  interval: 1h',
    `  path: ${path}`,
    '  prune: true',
    ...(targetNamespace ? [`  targetNamespace: ${targetNamespace}`] : []),
    '  postBuild:',
    '    substitute:',
    `      APP: ${name}`,
    '  sourceRef:',
    '    kind: GitRepository',
    '    name: flux-system',
    '    namespace: flux-system',
    '  wait: true',
    '',
  ].join('\n');
}

function deploymentYaml(app: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: \${APP}
  labels:
    app.kubernetes.io/name: \${APP}
spec:
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: ${app}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: ${app}
    spec:
      containers:
        - name: app
          image: ghcr.io/example/${app}:1.2.3
          ports:
            - containerPort: 8080
              name: http
          resources:
            requests:
              cpu: 10m
              memory: 64Mi
            limits:
              memory: 128Mi
          env:
            - name: LOG_LEVEL
              value: \${LOG_LEVEL:=info}
`;
}

function serviceYaml(app: string): string {
  return `apiVersion: v1
kind: Service
metadata:
  name: ${app}
spec:
  selector:
    app.kubernetes.io/name: ${app}
  ports:
    - name: http
      port: 80
      targetPort: http
`;
}

function configMapYaml(app: string): string {
  return `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${app}-config
data:
  config.yaml: |
    server:
      port: 8080
    feature:
      enabled: true
`;
}

function helmReleaseYaml(app: string): string {
  return `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: ${app}
spec:
  interval: 1h
  chartRef:
    kind: OCIRepository
    name: ${app}
  install:
    remediation:
      retries: 3
  values:
    replicaCount: 2
    image:
      repository: ghcr.io/example/${app}
      tag: 1.2.3
    service:
      port: 80
`;
}

function ociYaml(app: string): string {
  return `apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: ${app}
spec:
  interval: 1h
  layerSelector:
    mediaType: application/vnd.cncf.helm.chart.content.v1.tar+gzip
    operation: copy
  ref:
    tag: 1.0.0
  url: oci://ghcr.io/example/charts/${app}
`;
}
