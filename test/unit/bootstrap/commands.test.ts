/**
 * Command lines of task runners and scripts, read without running them: the words of each command
 * of a pipeline, and what kubectl, helm, helmfile and flux are asked to do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandsOf, fluxBootstrap, helmfileRun, helmInstall, kubectlApply } from '../../../src/core/bootstrap/commands';

const first = (text: string) => commandsOf(text).map((c) => [c.line, ...c.words]);

test('commands: continuations joined, quotes removed, pipes and $( split, templates with spaces kept in one word, comments dropped', () => {
  assert.deepEqual(first('# kubectl apply -f x\nif ! helmfile -f "{{ source_directory() }}/helmfile/crds.yaml" \\\n  template -q | kubectl apply -f -; then'), [
    [2, 'if', '!', 'helmfile', '-f', '{{ source_directory() }}/helmfile/crds.yaml', 'template', '-q'],
    [2, 'kubectl', 'apply', '-f', '-'],
    [2, 'then'],
  ]);
  assert.deepEqual(first("crds=$(helmfile --file 'a b.yaml' template) && flux bootstrap github --path=clusters/prod # the cluster"), [
    [1, 'crds='],
    [1, 'helmfile', '--file', 'a b.yaml', 'template'],
    [1, 'flux', 'bootstrap', 'github', '--path=clusters/prod'],
  ]);
});

test('kubectl apply|create: -k/--kustomize and -f/--filename, with = or a separate value; stdin and other verbs left out', () => {
  const k = (t: string) => kubectlApply(commandsOf(t)[0].words);
  assert.deepEqual(k('kubectl --context main apply --server-side -k ./crds -f=https://x/a.yaml --filename b.yaml'), { kustomize: ['./crds'], files: ['https://x/a.yaml', 'b.yaml'] });
  assert.deepEqual(k('{{ kubectl_cmd }} apply -f /dev/stdin'), { kustomize: [], files: [] });
  assert.equal(k('kubectl get -f x.yaml'), undefined);
  assert.equal(k('kubectl delete -k ./crds'), undefined);
});

test('helm install|upgrade: release and chart past flags with values; --skip-crds; other subcommands are not installs', () => {
  const h = (t: string) => helmInstall(commandsOf(t)[0].words);
  assert.deepEqual(h('helm upgrade --install -n kube-system --version 1.16.0 cilium cilium/cilium --wait --set ipam.mode=kubernetes'), {
    release: 'cilium',
    chart: 'cilium/cilium',
    namespace: 'kube-system',
    skipCrds: false,
  });
  assert.deepEqual(h('helm install --namespace=monitoring --skip-crds kps oci://ghcr.io/prometheus-community/charts/kube-prometheus-stack'), {
    release: 'kps',
    chart: 'oci://ghcr.io/prometheus-community/charts/kube-prometheus-stack',
    namespace: 'monitoring',
    skipCrds: true,
  });
  assert.equal(h('helm template cilium cilium/cilium'), undefined);
  assert.equal(h('helm repo add cilium https://helm.cilium.io'), undefined);
});

test('helmfile and flux bootstrap: the helmfile a run names, and the path bootstrap syncs', () => {
  assert.deepEqual(helmfileRun(commandsOf('helmfile --kube-context main --file bootstrap/apps.yaml sync --hide-notes')[0].words), { file: 'bootstrap/apps.yaml' });
  assert.deepEqual(helmfileRun(commandsOf('helmfile apply')[0].words), { file: undefined });
  assert.equal(helmfileRun(commandsOf('helmfile -f x.yaml lint')[0].words), undefined);
  assert.deepEqual(fluxBootstrap(commandsOf('flux bootstrap github --owner=me --path clusters/staging')[0].words), { path: 'clusters/staging' });
  assert.equal(fluxBootstrap(commandsOf('flux reconcile ks flux-system')[0].words), undefined);
});

test('hostile input is read in linear time: a megabyte line of unclosed templates and quotes, 100,000 continued lines', () => {
  const long = `kubectl apply -f ${'{{'.repeat(250_000)}`;
  assert.equal(commandsOf(long).length, 1);
  const quotes = `kubectl apply -f "${'a'.repeat(1_000_000)}`;
  assert.equal(commandsOf(quotes)[0].words.length, 4);
  const continued = `kubectl apply \\\n${'  -f x.yaml \\\n'.repeat(100_000)}`;
  const cmds = commandsOf(continued);
  assert.equal(cmds.length, 1);
  assert.equal(cmds[0].words.length, 200, 'words past the limit are not kept');
  const many = 'kubectl apply -f a.yaml; '.repeat(50_000);
  assert.equal(commandsOf(many).length, 20_000, 'commands past the per-file limit are not read');
});
