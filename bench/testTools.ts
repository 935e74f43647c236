/** The test tools test/cluster/build.sh builds into its cache (test/cluster/tools-env.sh names them). */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** `$VAR` (e.g. FLATE_BIN), else the test tools' cached build of `tool`; throws with how to build it. */
export function testToolBin(variable: string, tool: string): string {
  let bin = process.env[variable];
  if (!bin) {
    const out = execFileSync('bash', [path.join(__dirname, '../test/cluster/tools-env.sh'), '--print'], { encoding: 'utf8', timeout: 10_000 });
    bin = out.split('\n').find((l) => l.startsWith(`${variable}=`))?.slice(variable.length + 1);
  }
  if (!bin || !fs.existsSync(bin)) {
    throw new Error(`${tool} is not built (${bin ?? `${variable} unset`}): run \`bash test/cluster/build.sh ${tool}\` (or \`make tools\`), or set ${variable}`);
  }
  return bin;
}
