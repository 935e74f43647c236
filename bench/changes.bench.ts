/**
 * Reviewing a change (issue 27): `gitops-preview changes` beside flate (./flate.ts; test/cluster/build.sh
 * builds it, this bench fails without it) on the same machine and the same repository, a temporary Git
 * clone of bjw-s-labs-home-ops (the corpus committed as `main`, branch `feature`, the edit left in the
 * working tree; both tools compare that working tree with `main`):
 *   a. a one-file edit with warm caches (each tool run once on the edit first): ours against flate's
 *      changed-only `diff ks`, the target being "no slower than flate's changed-only mode";
 *   b. cold: ours with an empty cache against flate with an empty cache, its `diff ks` on the same edit
 *      and its full render of the tree (`build ks`: flate's `diff` has no full mode).
 * Every run is a whole process (start to exit, CPU through bash's `times`); the commands take turns
 * (A B C, then B C A, …) so a drift of the shared machine's speed reaches each alike; each run's output
 * must show the edit, or the bench fails.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { git } from '../test/unit/git/gitRepo';
import { bundleCli, f0, f2, measure, rows, TABLE_HEAD, type Command, type Measured } from './paired';
import { flateBin, flateCommon, flateVersion } from './flate';
import { CORPORA, median } from './inputs';

const CORPUS = 'bjw-s-labs-home-ops';
const RUNS = Number(process.env.BENCH_CHANGES_RUNS ?? 5);

interface Edit {
  readonly label: string;
  /** Relative to the repository. */
  readonly file: string;
  readonly from: string;
  readonly to: string;
  /** What our text report must show, and what flate's unified diff must show. */
  readonly ours: RegExp[];
  readonly flate: RegExp[];
}

/** A Service of a Kustomization with no HelmRelease (cilium-config): neither tool needs a chart. */
const SERVICE_EDIT: Edit = {
  label: 'Service `kube-system/kube-api`, `targetPort` 6443 → 6444 (`kubernetes/apps/kube-system/cilium/config/l3.yaml`, Flux Kustomization `cilium-config`)',
  file: 'kubernetes/apps/kube-system/cilium/config/l3.yaml',
  from: 'targetPort: 6443',
  to: 'targetPort: 6444',
  ours: [/Kustomization kube-system\/cilium-config\n\s+~ Service kube-system\/kube-api changed/, /\+ spec\.ports\[name=https\]\.targetPort: 6444/],
  flate: [/^-\s+targetPort: 6443$/m, /^\+\s+targetPort: 6444$/m],
};

/**
 * A HelmRelease's image tag (an app-template release whose chart comes from an OCIRepository): ours
 * compares HelmReleases by spec; flate reconciles the release and tries its chart, which fails here
 * (no network), and shows the HelmRelease object's diff from its Kustomization's output.
 */
const HELM_RELEASE_EDIT: Edit = {
  label: 'HelmRelease `selfhosted/atuin`, image tag 18.19.0 → 18.19.1 (`kubernetes/apps/selfhosted/atuin/app/helmrelease.yaml`, Flux Kustomization `atuin`)',
  file: 'kubernetes/apps/selfhosted/atuin/app/helmrelease.yaml',
  from: 'tag: 18.19.0',
  to: 'tag: 18.19.1',
  ours: [/~ HelmRelease selfhosted\/atuin changed/, /\+ spec\.values\.controllers\.atuin\.containers\.app\.image\.tag: 18\.19\.1/],
  flate: [/^\+\+\+ HelmRelease selfhosted\/atuin$/m, /^-\s+tag: 18\.19\.0$/m, /^\+\s+tag: 18\.19\.1$/m],
};

/** The corpus committed as `main` (it has no .git), then branch `feature` checked out. */
function makeRepo(dir: string): void {
  fs.cpSync(path.join(CORPORA, CORPUS), dir, { recursive: true });
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.email=bench@example.com', '-c', 'user.name=bench', 'commit', '-q', '-m', CORPUS);
  git(dir, 'checkout', '-q', '-b', 'feature');
}

/** The working tree as `main` but for `edit`. */
function applyEdit(repo: string, edit: Edit): void {
  git(repo, 'checkout', '-q', '--', '.');
  const file = path.join(repo, edit.file);
  const text = fs.readFileSync(file, 'utf8');
  if (text.split(edit.from).length !== 2) throw new Error(`${edit.file}: '${edit.from}' is not there exactly once`);
  fs.writeFileSync(file, text.replace(edit.from, edit.to));
  if (git(repo, 'status', '--porcelain', '--untracked-files=all') !== `M ${edit.file}`) throw new Error(`the working tree differs from main in more than ${edit.file}`);
}

export async function run(): Promise<string> {
  const flate = flateBin();
  const version = flateVersion(flate);
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-changes-bench-')));
  const started = new Date();
  const loadStart = os.loadavg();
  try {
    const cli = bundleCli(path.join(tmp, 'cli'));
    const repo = path.join(tmp, 'repo');
    makeRepo(repo);
    // flate's documented changed-only set-up: the base checked out beside the tree (`git worktree add`).
    const baseline = path.join(tmp, 'baseline');
    git(repo, 'worktree', 'add', '-q', '--detach', baseline, 'main');
    const ours = (edit: Edit, cache: (i: number) => string): Command => ({
      name: 'ours: `gitops-preview changes --base main --format text --offline`',
      bin: process.execPath,
      args: () => [cli, 'changes', repo, '--base', 'main', '--format', 'text', '--offline'],
      env: (i) => ({ GITOPS_PREVIEW_CACHE: cache(i) }),
      ok: [1],
      expect: edit.ours,
    });
    const flateDiff = (edit: Edit, cache: (i: number) => string, pathOrig?: string): Command => ({
      name: pathOrig ? 'flate: `diff ks --path-orig <main checked out>` (changed-only)' : 'flate: `diff ks --base main` (changed-only)',
      bin: flate,
      args: (i) => ['diff', 'ks', '--path', repo, ...(pathOrig ? ['--path-orig', pathOrig] : ['--base', 'main']), '-o', 'diff', ...flateCommon(cache(i))],
      ok: [0, 1],
      expect: edit.flate,
    });
    const flateBuild = (cache: (i: number) => string): Command => ({
      name: 'flate: `build ks` (every Kustomization of the working tree, no diff)',
      bin: flate,
      args: (i) => ['build', 'ks', '--path', repo, ...flateCommon(cache(i))],
      ok: [0, 1],
      expect: [/^\s+targetPort: 6444$/m],
    });

    // a. Warm: one cache directory per tool and edit, kept; the uncounted first run fills it.
    const warm: { edit: Edit; measured: Measured[] }[] = [];
    for (const [n, edit] of [SERVICE_EDIT, HELM_RELEASE_EDIT].entries()) {
      process.stderr.write(`changes a: one-file edit ${n + 1}, warm\n`);
      applyEdit(repo, edit);
      const oursCache = path.join(tmp, `ours-warm-${n}`);
      const flateCache = path.join(tmp, `flate-warm-${n}`);
      warm.push({ edit, measured: measure([ours(edit, () => oursCache), flateDiff(edit, () => flateCache), flateDiff(edit, () => flateCache, baseline)], RUNS, repo) });
    }

    // b. Cold: a new empty cache directory for every run.
    process.stderr.write('changes b: cold\n');
    applyEdit(repo, SERVICE_EDIT);
    const fresh = (tool: string) => (i: number) => path.join(tmp, `${tool}-cold-${i}`);
    const cold = measure([ours(SERVICE_EDIT, fresh('ours')), flateDiff(SERVICE_EDIT, fresh('flate-diff')), flateBuild(fresh('flate-build'))], RUNS, repo);
    const loadEnd = os.loadavg();

    const verdicts = warm.map(({ edit, measured }) => {
      const paired = median(measured[0].runs.map((r, i) => r.ms / measured[1].runs[i].ms));
      const [o, f] = [measured[0], measured[1]].map((m) => median(m.runs.map((r) => r.ms)));
      return `${edit.label.split(',')[0]}: ours ${f0(o)} ms, flate ${f0(f)} ms, ours ÷ flate ${f2(paired)} — ${paired <= 1 ? '**met**' : '**missed**'}`;
    });
    return [
      '## Changes (issue 27)',
      '',
      'Command: `npm run bench -- changes` (needs flate: `bash test/cluster/build.sh flate`, which `make bench` runs through `make tools`).',
      `Run ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; flate: \`${version}\`.`,
      `Load average (1, 5, 15 min) when the bench started: ${loadStart.map(f2).join(', ')}; when it ended: ${loadEnd.map(f2).join(', ')}.`,
      `${RUNS} counted runs of each command after one uncounted one, the commands taking turns; "ours ÷ this" is the median of the per-round ratios of wall times.`,
      '',
      ...warm.flatMap(({ edit, measured }, n) => [`### a${n + 1}. One-file edit, warm caches: ${edit.label}`, '', ...TABLE_HEAD, ...rows(measured, measured[0]), '']),
      `Target "no slower than flate's changed-only mode" (\`diff ks --base main\`): ${verdicts.join('; ')}.`,
      '',
      `### b. Cold caches (edit a1), every run with new empty cache directories`,
      '',
      ...TABLE_HEAD,
      ...rows(cold, cold[0]),
      '',
    ].join('\n');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
