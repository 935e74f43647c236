/**
 * Build parity with the official flux CLI over ../shared/corpora (see harness.ts).
 *
 *   npm run parity                                   # every corpus, table on stdout
 *   npm run parity -- --corpus flux2-multi-tenancy   # some corpora (repeatable)
 *   npm run parity -- --json /tmp/parity.json        # every entry (diffs, errors, commands)
 *   npm run parity -- --details                      # every mismatch with its causes
 *   npm run parity -- --corpus X --only CLUSTER/NS/NAME   # some Kustomizations (and their parents)
 *
 * Tools: FLUX_BIN / KUSTOMIZE_BIN / HELM_BIN, else test/cluster/tools-env.sh (build them with
 * `bash test/cluster/build.sh`). PARITY_PARALLELISM (default 2).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { corpusDirs, formatCauses, formatTable, resolveTools } from './report';
import { defaultWorkDir, runCorpus, summarize, type Entry } from './harness';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      corpus: { type: 'string', multiple: true },
      only: { type: 'string', multiple: true },
      json: { type: 'string' },
      details: { type: 'boolean' },
      corpora: { type: 'string' },
    },
  });
  const repoRoot = path.resolve(__dirname, '../..');
  const dirs = corpusDirs(values.corpora ?? path.join(repoRoot, '..', 'shared', 'corpora'), values.corpus);
  const tools = resolveTools(repoRoot);
  const parallelism = Number(process.env.PARITY_PARALLELISM ?? 2);
  const work = defaultWorkDir();
  const all: Entry[] = [];
  const summaries = [];
  const unplaced: Record<string, string[]> = {};
  const started = Date.now();
  try {
    for (const dir of dirs) {
      const t0 = Date.now();
      const only = values.only?.length ? new Set(values.only) : undefined;
      const result = await runCorpus(dir, { tools, parallelism, workDir: path.join(work, path.basename(dir)), only: only && ((id) => only.has(id)) });
      all.push(...result.entries);
      summaries.push(summarize(path.basename(dir), result));
      if (result.unplaced.length) unplaced[path.basename(dir)] = result.unplaced;
      process.stderr.write(`parity: ${path.basename(dir)}: ${result.entries.length} Kustomizations in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(formatTable(summaries) + '\n\n' + formatCauses(all, values.details === true) + '\n');
  process.stderr.write(`parity: ${all.length} Kustomizations, ${((Date.now() - started) / 1000).toFixed(1)}s at parallelism ${parallelism}\n`);
  if (values.json) fs.writeFileSync(values.json, JSON.stringify({ summaries, unplaced, entries: all }, null, 2));
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`parity: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
