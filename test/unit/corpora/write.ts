/**
 * Writes the corpus snapshots anew: `npm run corpora:snapshot [-- NAME…]`. Review the diff finding
 * by finding before committing it, and say in the commit why each change is right.
 */
import { corpusNames, snapshotOf, writeSnapshot } from './snapshot';

async function main(): Promise<void> {
  const names = process.argv.slice(2).length ? process.argv.slice(2) : corpusNames();
  for (const name of names) {
    const started = performance.now();
    const snapshot = await snapshotOf(name);
    writeSnapshot(snapshot);
    const v = snapshot.view;
    process.stdout.write(
      `${name}: ${v.clusters.length} clusters, ${v.kustomizations.length} Ks, ${v.helmReleases.length} HR, ${v.unapplied.length} unapplied, ${v.findings.length} findings${snapshot.feature ? ', feature branch differs' : ''} (${((performance.now() - started) / 1000).toFixed(1)} s)\n`,
    );
  }
  process.exit(0);
}

void main();
