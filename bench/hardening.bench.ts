/**
 * `check` and `tree` on the hostile repositories of the hardening issue, at the sizes the fuzzing
 * pass found them breaking the tool. Each command runs in a fresh Node process (the CLI function,
 * in-process there) so the peak RSS is that input's alone; the time excludes module loading.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { runCli } from '../src/cli/main';
import { adversarial, ancestorPath, materialize, type Adversarial } from '../test/unit/hardening/adversarial';
import { adversarialBudgets } from '../test/unit/hardening/adversarialBudgets';
import { adversarialLinear } from '../test/unit/hardening/adversarialLinear';
import { adversarialOutput } from '../test/unit/hardening/adversarialOutput';

/** Label, what the input did before its fix, the repository, and flags for the command (a budget lowered to show it stopping). */
const INPUTS: [string, string, () => Adversarial, string[]?][] = [
  ['symlink loop (`a -> .`)', 'hang', adversarial.symlinkLoop],
  ['manifest linked to /dev/zero', 'hang, 12.8 GB', adversarial.symlinkDevZero],
  ['FIFO named `pipe.yaml`', 'hang', adversarial.fifo],
  ['backtracking `.sourceignore` glob, 200-char name', 'hang', adversarial.sourceignoreBacktracking],
  ['50,000 aliases in one document', 'quadratic', () => adversarial.manyAliases(50_000)],
  ['alias bomb (10⁹ nodes)', '—', adversarial.aliasBomb],
  ['self-referencing aliases (substitute, values)', 'stack trace', adversarial.selfAlias],
  ['kustomization chain 1,000 deep', 'stack trace', () => adversarial.kustomizeChain(1000)],
  ['3,000 nested Kustomizations', 'stack trace', () => adversarial.nestedKustomizations(3000)],
  ['2,000-member dependsOn ring', '214 MB JSON at 1,000', () => adversarial.dependsOnRing(2000)],
  ['folder listed twice × 22 levels', '2 GB', () => adversarial.doubledListing(22)],
  ['1,000,000 empty documents', '1.5 GB', () => adversarial.millionDocuments(1_000_000)],
  ["spec.path './' above its own file", 'cluster vanished, 0 errors', () => ancestorPath('./')],
  // Second round (issue #23).
  ['thirty 4.9 MB files (13.5 KiB as a Git pack)', 'abort at 4.3 GB', () => adversarialBudgets.manyLargeFiles(30)],
  ['1 MB variable substituted 400 times', 'heap exhausted (4.3 GB)', () => adversarialBudgets.substitutionAmplification(400)],
  ['1 MB variable substituted 1,000 times', '0 errors; build: Invalid string length', () => adversarialBudgets.substitutionAmplification(1000)],
  ['5 Kustomizations over one slow folder (150 × 150 patches), build budget 60 s', '303 s, 0 errors', () => adversarialBudgets.slowBuild(5, 150, 150), ['--max-build-seconds', '60']],
  ['names and file names forging output (`::stop-commands::`, ESC, bidi)', 'forged lines', adversarialOutput.forgedLines],
  ['GitRepository url with 500 KB of slashes', 'hang > 120 s', () => adversarialLinear.gitUrlSlashes()],
  ['`.sourceignore` line with 500 KB of blanks', 'hang > 120 s', () => adversarialLinear.sourceignoreBlanks()],
  ['YAML header line with 500 KB of blanks', 'hang > 120 s', () => adversarialLinear.headerBlanks()],
  ['chart name with 500 KB of slashes', 'hang > 120 s', () => adversarialLinear.chartSlashes()],
  ['50,000 missing dependsOn entries', 'graph: no end in 13 min', () => adversarialLinear.missingDependsOn()],
  ['`.sourceignore` of 40,000 lines over 20,000 files', 'no end in 150 s', () => adversarialLinear.sourceignoreLarge()],
  ['`${a:=${a:=…}}` nested 2,000 deep', 'stack overflow; a finding hidden', () => adversarialLinear.nestedDefaults()],
  ['100,000 anchors and a flow list of 100,000 aliases (2.5 MB)', 'no end in 60 s', () => adversarialLinear.anchorsAndAliases()],
];

interface Outcome {
  code: number;
  ms: number;
  rssMB: number;
  bytes: number;
}

/** Runs inside the child process. */
async function measure(command: string, dir: string, extra: string[]): Promise<Outcome> {
  let bytes = 0;
  const started = performance.now();
  const code = await runCli([command, dir, '--format', 'json', ...extra], { stdout: (t) => (bytes += t.length), stderr: (t) => (bytes += t.length), cwd: dir, env: {} });
  const ms = performance.now() - started;
  return { code, ms, rssMB: process.resourceUsage().maxRSS / 1024, bytes };
}

export async function run(): Promise<string> {
  const rows: string[] = [];
  // HARDENING_ONLY=text measures only the inputs whose label holds it.
  const only = process.env.HARDENING_ONLY;
  for (const [label, before, make, extra = []] of INPUTS.filter(([l]) => !only || l.includes(only))) {
    const fixture = materialize(make());
    try {
      const cells = ['check', 'tree'].map((command) => {
        const out = execFileSync(process.execPath, ['--import', 'tsx', __filename, command, fixture.dir, ...extra], { cwd: path.resolve(__dirname, '..'), timeout: 700_000, maxBuffer: 1 << 30 });
        const o = JSON.parse(out.toString()) as Outcome;
        return `${o.code} | ${(o.ms / 1000).toFixed(2)} s | ${o.rssMB.toFixed(0)} MB | ${(o.bytes / 1024).toFixed(0)} KiB`;
      });
      rows.push(`| ${label} | ${before} | ${cells.join(' | ')} |`);
    } finally {
      fixture.cleanup();
    }
  }
  return [
    '## Hardening: hostile repositories',
    '',
    '`check` and `tree` (`--format json`) on the inputs of both hardening issues, each in a fresh process',
    '(`bench/hardening.bench.ts`; fixtures from `test/unit/hardening/adversarial*.ts`). Time is the',
    'command alone (module loading excluded), memory the peak RSS of the process, output what it printed.',
    'Target: exit 0 or 1 with a diagnostic, within the command\'s budgets, under its memory ceiling. "Before" is what',
    'the fuzzing pass (first round) or the review of issue #23 (second round) measured on the code of its day.',
    '',
    '| input | before | check exit | check time | check peak RSS | check output | tree exit | tree time | tree peak RSS | tree output |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

if (require.main === module && process.argv[2]) {
  void measure(process.argv[2], process.argv[3], process.argv.slice(4)).then((o) => process.stdout.write(JSON.stringify(o)));
}
