import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  chartNameProblem,
  chartRepoUrlProblem,
  dns1123LabelProblem,
  dns1123SubdomainProblem,
  kubeVersionProblem,
  ociChartNameProblem,
  ociDigestProblem,
  ociTagProblem,
  ociUrlProblem,
  releaseNameProblem,
  shortenReleaseName,
  versionConstraintProblem,
} from '../../../src/core/flux/validation';
import { helmReleaseName } from '../../../src/core/model/types';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

test('release names: flag-looking, upper case, too long and empty names are refused; Helm-valid names pass', () => {
  for (const bad of ['--post-renderer=sh', '-x', 'My-Release', 'rel_name', 'a'.repeat(54), '', 'rel-', '.rel', 'a..b', 'a b']) {
    assert.ok(releaseNameProblem(bad), `'${bad}' should be refused`);
  }
  for (const good of ['podinfo', 'a', 'flux-system-podinfo', 'my.release-1', 'a'.repeat(53)]) {
    assert.equal(releaseNameProblem(good), undefined, good);
  }
  assert.match(releaseNameProblem('--post-renderer=sh')!, /"--post-renderer=sh" is not a valid Helm release name/);
});

test('helm-controller ShortenName: its own test vectors, and the computed default release name uses it', () => {
  assert.equal(shortenReleaseName('release-name', sha256), 'release-name');
  assert.equal(shortenReleaseName('release-name-with-very-long-name-which-is-longer-than-53-characters', sha256), 'release-name-with-very-long-name-which-i-788ca0d0d7b0');
  assert.equal(shortenReleaseName('another-release-name-with-very-long-name-which-is-longer-than-53-characters', sha256), 'another-release-name-with-very-long-name-7e72150d5a36');
  const ns = 'a-very-long-target-namespace-for-testing';
  const name = helmReleaseName('and-a-long-helmrelease-name', ns, undefined, sha256);
  assert.equal(name, shortenReleaseName(`${ns}-and-a-long-helmrelease-name`, sha256));
  assert.equal(name.length, 53);
  assert.equal(releaseNameProblem(name), undefined);
  // spec.releaseName is never shortened: helm-controller's CRD refuses one over 53 characters.
  assert.equal(helmReleaseName('x', undefined, 'r'.repeat(60), sha256), 'r'.repeat(60));
});

test('DNS-1123 labels (namespaces) and subdomains', () => {
  assert.equal(dns1123LabelProblem('flux-system'), undefined);
  assert.ok(dns1123LabelProblem('--namespace'));
  assert.ok(dns1123LabelProblem('a.b'));
  assert.ok(dns1123LabelProblem('a'.repeat(64)));
  assert.equal(dns1123SubdomainProblem('a.b-c.d'), undefined);
  assert.ok(dns1123SubdomainProblem('A.b'));
});

test('chart names, versions, URLs, OCI tags and digests, kube versions', () => {
  assert.equal(chartNameProblem('kube-prometheus-stack'), undefined);
  assert.equal(chartNameProblem('podinfo_2.x'), undefined);
  for (const bad of ['--set=x', '../chart', 'a/b', '', '-chart']) assert.ok(chartNameProblem(bad), bad);
  assert.equal(ociChartNameProblem('charts/podinfo'), undefined);
  assert.ok(ociChartNameProblem('--insecure-skip-tls-verify'));

  for (const good of ['1.2.3', '>=1.0.0 <2.0.0', '~6.5', '^1.x', '6.*', '1.0.0-rc.1', '>=1.0.0, <2.0.0 || 3.x']) assert.equal(versionConstraintProblem(good), undefined, good);
  for (const bad of ['--devel', 'latest; rm', '$(id)', '']) assert.ok(versionConstraintProblem(bad), bad);

  assert.equal(chartRepoUrlProblem('https://stefanprodan.github.io/podinfo'), undefined);
  for (const bad of ['--repo', 'file:///etc', 's3://bucket/charts', 'https://x y', 'oci://ghcr.io/x']) assert.ok(chartRepoUrlProblem(bad), bad);

  assert.equal(ociUrlProblem('oci://ghcr.io/stefanprodan/charts/podinfo'), undefined);
  assert.equal(ociUrlProblem('oci://localhost:5000/charts'), undefined);
  for (const bad of ['https://ghcr.io/x', 'oci://--flag', 'oci://ghcr.io/Upper/Case', 'oci://host/a b']) assert.ok(ociUrlProblem(bad), bad);

  assert.equal(ociTagProblem('6.5.0'), undefined);
  assert.ok(ociTagProblem('-x'));
  assert.equal(ociDigestProblem(`sha256:${'a'.repeat(64)}`), undefined);
  assert.ok(ociDigestProblem('sha256:xyz'));
  assert.ok(ociDigestProblem('--digest'));

  assert.equal(kubeVersionProblem('1.33.0'), undefined);
  assert.equal(kubeVersionProblem('v1.30'), undefined);
  assert.ok(kubeVersionProblem('--kube-version=1'));
});
