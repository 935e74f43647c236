import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as os from 'node:os';
import { runCliCaptured } from '../helpers';

const COMMANDS = ['check', 'tree', 'build', 'diff', 'changes', 'graph', 'reconcile', 'suspend', 'resume'];

test('every command answers --help and -h with its usage and the limits, exit 0, touching nothing', async () => {
  for (const name of COMMANDS) {
    for (const flag of ['--help', '-h']) {
      // A folder that is no repository and a name that is no object: help is answered before either is read.
      const r = await runCliCaptured([name, 'ks', 'nothing', flag], os.tmpdir());
      assert.equal(r.code, 0, `${name} ${flag}: ${r.stderr}`);
      assert.equal(r.stderr, '');
      assert.match(r.stdout, new RegExp(`^usage: gitops-preview ${name} `), `${name} ${flag}`);
      assert.match(r.stdout, /\n\nlimits \(every command/);
    }
  }
  // The whole usage, not the list's abbreviation, where the list abbreviates it.
  assert.match((await runCliCaptured(['diff', '--help'], os.tmpdir())).stdout, /--concurrency N/);
  assert.match((await runCliCaptured(['reconcile', '-h'], os.tmpdir())).stdout, /--with-source/);
});
