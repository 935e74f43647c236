/**
 * `npm run bench`: runs every `bench/*.bench.ts` (each exports `run(): Promise<string>`, a markdown
 * section) one after another and writes docs/benchmarks.md. Pass names to run a subset
 * (`npm run bench -- model checks`); a subset prints its sections without rewriting the file.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

async function main() {
  const only = process.argv.slice(2);
  const dir = __dirname;
  const names = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.bench.ts'))
    .map((f) => f.slice(0, -'.bench.ts'.length))
    .sort((a, b) => (a === 'model' ? -1 : b === 'model' ? 1 : a.localeCompare(b)))
    .filter((n) => only.length === 0 || only.includes(n));
  const sections: string[] = [];
  let failed = false;
  for (const name of names) {
    process.stderr.write(`bench ${name}...\n`);
    const started = Date.now();
    try {
      const mod = await import(path.join(dir, `${name}.bench.ts`));
      sections.push(await mod.run());
    } catch (err) {
      failed = true;
      sections.push(`## ${name}\n\nFailed: ${(err as Error).stack ?? err}\n`);
    }
    process.stderr.write(`bench ${name}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const header = [
    '# Benchmarks',
    '',
    `Produced by \`npm run bench\` (or \`make bench\`, which also builds the test cluster binaries) on ${new Date().toISOString().slice(0, 10)},`,
    `${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}. Times are wall-clock medians`,
    'unless stated; the machine was otherwise idle unless stated. Targets come from the issues.',
    'This machine is a shared VM: the same command varies by up to ±30 % between runs, so compare',
    'ratios measured in one run (index vs. floor, p50 vs. p95) rather than numbers across runs.',
    '',
  ].join('\n');
  const text = header + '\n' + sections.join('\n');
  if (only.length === 0) {
    fs.mkdirSync(path.join(dir, '../docs'), { recursive: true });
    fs.writeFileSync(path.join(dir, '../docs/benchmarks.md'), text);
    process.stderr.write('wrote docs/benchmarks.md\n');
  }
  process.stdout.write(text);
  if (failed) process.exitCode = 1;
}

void main();
