/**
 * Hostile repositories whose hostility is in the file system rather than in their YAML: `.git`
 * metadata pointing outside the repository, names that are not UTF-8, paths longer than the
 * system allows. Each writes beside the repository what it tries to reach (`outside/`), so a test
 * can tell whether it was read.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BASE, writeRepo, type Fixture } from './adversarial';

/** A commit hash nothing inside the repository holds: seeing it means something outside was read. */
export const OUTSIDE_SHA = 'feedc0de'.repeat(5);
export const OUTSIDE_URL = 'https://github.com/outside/secret';

/** A repository (`dir/repo`) next to a folder it must not read (`dir/outside`). */
export interface FsFixture extends Fixture {
  /** The repository (a Fixture's `dir` is their common parent). */
  readonly repo: string;
  readonly outside: string;
}

function withOutside(files: Record<string, string>, prepare: (repo: string, outside: string) => void): FsFixture {
  const prefixed = Object.fromEntries(Object.entries(files).map(([rel, text]) => [`repo/${rel}`, text]));
  const fixture = writeRepo(prefixed, (dir) => {
    const outside = path.join(dir, 'outside');
    fs.mkdirSync(outside);
    prepare(path.join(dir, 'repo'), outside);
  });
  return { ...fixture, repo: `${fixture.dir}/repo`, outside: `${fixture.dir}/outside` };
}

/** A git directory outside the repository: on branch main at OUTSIDE_SHA, remote OUTSIDE_URL, tagged `leaked`. */
function outsideGitDir(dir: string): void {
  fs.mkdirSync(path.join(dir, 'refs/heads'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'refs/tags'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'HEAD'), 'ref: refs/heads/main\n');
  fs.writeFileSync(path.join(dir, 'refs/heads/main'), `${OUTSIDE_SHA}\n`);
  fs.writeFileSync(path.join(dir, 'refs/tags/leaked'), `${OUTSIDE_SHA}\n`);
  fs.writeFileSync(path.join(dir, 'packed-refs'), `${OUTSIDE_SHA} refs/heads/packed\n`);
  fs.writeFileSync(path.join(dir, 'config'), `[remote "origin"]\n\turl = ${OUTSIDE_URL}\n`);
}

/**
 * A second source of the repository's own URL (its `.git/config` remote) on branch main: the tree
 * tells it apart from the workspace when the checkout is elsewhere, naming the checked-out commit.
 */
const SAME_REPO_SOURCE = {
  'clusters/prod/fleet.yaml': `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: fleet
  namespace: flux-system
spec:
  interval: 1m
  ref:
    branch: main
  url: https://github.com/example/fleet
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: fleet-apps
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps
  prune: true
  sourceRef:
    kind: GitRepository
    name: fleet
`,
};

/** `.git` inside the repository, `files` relative to it, with the repository's own remote. */
function gitFiles(files: Record<string, string>): Record<string, string> {
  const git = { config: '[remote "origin"]\n\turl = https://github.com/example/fleet\n', ...files };
  return { ...BASE, ...SAME_REPO_SOURCE, ...Object.fromEntries(Object.entries(git).map(([rel, text]) => [`.git/${rel}`, text])) };
}

export const adversarialGit = {
  /** `.git/HEAD` names a "ref" that climbs out of the repository to a file holding a hash. */
  headRefClimbsOut: () =>
    withOutside(gitFiles({ HEAD: 'ref: ../../outside/ref\n' }), (_repo, outside) =>
      fs.writeFileSync(path.join(outside, 'ref'), `${OUTSIDE_SHA}\n`)),
  /** The same through `refs/heads/`, as git's own refs are named. */
  branchRefClimbsOut: () =>
    withOutside(gitFiles({ HEAD: 'ref: refs/heads/../../../../outside/ref\n', 'refs/heads/main': `${'0'.repeat(40)}\n` }), (_repo, outside) =>
      fs.writeFileSync(path.join(outside, 'ref'), `${OUTSIDE_SHA}\n`)),
  /** `.git/refs/heads/main` is a link to a file outside holding a hash. */
  refLinkOut: () =>
    withOutside(gitFiles({ HEAD: 'ref: refs/heads/main\n' }), (repo, outside) => {
      fs.writeFileSync(path.join(outside, 'ref'), `${OUTSIDE_SHA}\n`);
      fs.mkdirSync(path.join(repo, '.git/refs/heads'), { recursive: true });
      fs.symlinkSync(path.join(outside, 'ref'), path.join(repo, '.git/refs/heads/main'));
    }),
  /** `.git` is a link to another repository's git directory. */
  dotGitLinkOut: () =>
    withOutside(BASE, (repo, outside) => {
      outsideGitDir(outside);
      fs.symlinkSync(outside, path.join(repo, '.git'));
    }),
  /** `.git` is a `gitdir:` pointer to another repository's git directory, which does not name this checkout. */
  gitdirPointerOut: () =>
    withOutside({ ...BASE }, (repo, outside) => {
      outsideGitDir(outside);
      fs.writeFileSync(path.join(repo, '.git'), `gitdir: ${outside}\n`);
    }),
  /** `.git/commondir` points at another repository's git directory (its packed-refs and config). */
  commondirOut: () =>
    withOutside(gitFiles({ HEAD: 'ref: refs/heads/packed\n' }), (repo, outside) => {
      outsideGitDir(outside);
      fs.writeFileSync(path.join(repo, '.git/commondir'), `${outside}\n`);
    }),
};

/** A genuine linked worktree (`dir/wt`) of a repository (`dir/main`): its git directory names it back. */
export function linkedWorktree(): FsFixture {
  return withOutside(BASE, (repo, outside) => {
    const main = path.join(outside, 'main');
    const gitDir = path.join(main, '.git/worktrees/wt');
    outsideGitDir(path.join(main, '.git'));
    fs.mkdirSync(gitDir, { recursive: true });
    fs.writeFileSync(path.join(gitDir, 'HEAD'), 'ref: refs/heads/main\n');
    fs.writeFileSync(path.join(gitDir, 'commondir'), '../..\n');
    fs.writeFileSync(path.join(gitDir, 'gitdir'), `${path.join(repo, '.git')}\n`);
    fs.writeFileSync(path.join(repo, '.git'), `gitdir: ${gitDir}\n`);
  });
}

/** A submodule (`dir/repo`) whose git directory lives in its superproject's `.git/modules/repo`. */
export function submodule(): FsFixture {
  return withOutside(BASE, (repo, outside) => {
    const gitDir = path.join(outside, 'modules/repo');
    outsideGitDir(gitDir);
    fs.appendFileSync(path.join(gitDir, 'config'), `[core]\n\tworktree = ${path.relative(gitDir, repo)}\n`);
    fs.writeFileSync(path.join(repo, '.git'), `gitdir: ${path.relative(repo, gitDir)}\n`);
  });
}

/**
 * Names that are not UTF-8: `apps/bad-<ff fe>.yaml`, a ConfigMap Flux would apply, and a folder
 * `apps/dir-<c3 28>/` holding another.
 */
export function nonUtf8Name(): Fixture {
  return writeRepo(BASE, (dir) => {
    const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
    const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\n`;
    fs.writeFileSync(bytes(`${dir}/apps/bad-`, [0xff, 0xfe], '.yaml'), cm('hidden'));
    fs.mkdirSync(bytes(`${dir}/apps/dir-`, [0xc3, 0x28]));
    fs.writeFileSync(bytes(`${dir}/apps/dir-`, [0xc3, 0x28], '/inner.yaml'), cm('inner'));
  });
}

/**
 * `apps/ddd…/` nests folders until a path passes the system's 4,096-byte limit, with a manifest
 * at the bottom. Made in a child process changing into each new folder by its relative name (the
 * only way to make it), removed with `rm -rf` (which does the same).
 */
export function overlongPath(): Fixture {
  const fixture = writeRepo(BASE, (dir) => {
    const segment = 'd'.repeat(200);
    const depth = Math.ceil((4200 - dir.length) / (segment.length + 1));
    const script = `const fs = require('node:fs');
process.chdir('apps');
for (let i = 0; i < ${depth}; i++) { fs.mkdirSync('${segment}'); process.chdir('${segment}'); }
fs.writeFileSync('deep.yaml', 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: deep\\n');`;
    execFileSync(process.execPath, ['-e', script], { cwd: dir });
  });
  return { dir: fixture.dir, cleanup: () => execFileSync('rm', ['-rf', fixture.dir]) };
}
