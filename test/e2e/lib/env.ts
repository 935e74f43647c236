/**
 * What test/e2e/run.sh hands to the scenarios, read once. A scenario run without run.sh fails
 * here with a message saying how to run it, instead of timing out against nothing.
 */
import * as path from 'node:path';

export interface E2eEnv {
  /** code-server's base URL, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** The throwaway copy of examples/demo-repo that code-server has open. */
  readonly workspace: string;
  /** Where screenshots go (test/e2e/artifacts unless E2E_ARTIFACTS says otherwise). */
  readonly artifacts: string;
  /** Admin kubeconfig of the test cluster (the extension is configured with the same file). */
  readonly kubeconfig: string;
  /** code-server's --user-data-dir (settings, workspace state, backups of unsaved editors). */
  readonly userData: string;
  readonly chromium: string;
}

function required(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the e2e scenarios through test/e2e/run.sh (make test-e2e)`);
  return v;
}

export function e2eEnv(): E2eEnv {
  return {
    url: required('E2E_URL'),
    workspace: required('E2E_WORKSPACE'),
    artifacts: process.env.E2E_ARTIFACTS ?? path.resolve(__dirname, '..', 'artifacts'),
    kubeconfig: required('E2E_KUBECONFIG'),
    userData: required('E2E_USER_DATA'),
    chromium: process.env.E2E_CHROMIUM ?? '/usr/bin/chromium',
  };
}
