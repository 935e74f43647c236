/**
 * Shell command lines of task runners and scripts, read without running anything: what `kubectl`,
 * `helm`, `helmfile` and `flux` are asked to install before Flux. One left-to-right pass per line
 * (no backtracking on repository text); quoting is honoured as far as telling words apart needs.
 */

/** One command of a pipeline or list (`a | b && c` is three), with the 1-based line it starts on. */
export interface CommandWords {
  readonly line: number;
  readonly words: readonly string[];
}

/** Words past this many per command are not read: no real command is that long. */
const MAX_WORDS = 200;
/** Commands read per file. */
export const MAX_COMMANDS = 20_000;

const OPERATORS = new Set(['|', '||', '&&', ';', '&', '(', ')', '`']);

/**
 * The commands of a script's text: lines joined at a trailing `\`, `#` comments dropped, split at
 * `|`, `&&`, `||`, `;`, `$(`, and words unquoted. `{{ … }}` (just, Task, Go templates) stays one word
 * with what follows it, so `{{ source_directory() }}/crds` is a path.
 */
export function commandsOf(text: string): CommandWords[] {
  const out: CommandWords[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length && out.length < MAX_COMMANDS; i++) {
    const start = i;
    // Parts joined once: appending line by line would copy a long continued command again per line.
    const parts = [lines[i]];
    while (parts[parts.length - 1].endsWith('\\') && i + 1 < lines.length) {
      parts[parts.length - 1] = parts[parts.length - 1].slice(0, -1);
      parts.push(lines[++i]);
    }
    const line = parts.join(' ');
    if (!line.includes('kubectl') && !line.includes('helm') && !line.includes('flux')) continue;
    for (const words of splitCommands(line)) {
      if (out.length >= MAX_COMMANDS) break;
      if (words.length) out.push({ line: start + 1, words });
    }
  }
  return out;
}

/** The commands of one line (continuations already joined), as words. */
export function splitCommands(line: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let quote = '';
  let inWord = false;
  const endWord = () => {
    if (inWord && words.length < MAX_WORDS) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    commands.push(words);
    words = [];
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = '';
      else word += c;
      continue;
    }
    if (c === '{' && line[i + 1] === '{') {
      const close = line.indexOf('}}', i + 2);
      const end = close < 0 ? line.length : close + 2;
      word += line.slice(i, end);
      inWord = true;
      i = end - 1;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
      continue;
    }
    if (c === '#' && !inWord) break;
    if (c === ' ' || c === '\t' || c === '\r') {
      endWord();
      continue;
    }
    if (c === '$' && line[i + 1] === '(') {
      endCommand();
      i++;
      continue;
    }
    if (OPERATORS.has(c)) {
      endCommand();
      if ((c === '|' || c === '&') && line[i + 1] === c) i++;
      continue;
    }
    word += c;
    inWord = true;
  }
  endCommand();
  return commands;
}

/** The words after the tool (`kubectl`, `helm`…), when this command runs it; a variable for the tool (`{{ kubectl_cmd }}`) counts. */
export function argsOf(words: readonly string[], tool: string): string[] | undefined {
  for (let i = 0; i < words.length && i < 8; i++) {
    const w = words[i];
    const base = w.slice(w.lastIndexOf('/') + 1);
    if (base === tool || (w.startsWith('{{') && w.endsWith('}}') && w.includes(tool))) return words.slice(i + 1) as string[];
  }
  return undefined;
}

/** A flag's value: `--flag value`, `--flag=value`, `-f value`, `-fvalue`. Returns [value, words used]. */
function flagValue(args: readonly string[], i: number, long: string[], short: string[]): [string, number] | undefined {
  const w = args[i];
  for (const l of long) {
    if (w === l) return args[i + 1] !== undefined ? [args[i + 1], 2] : undefined;
    if (w.startsWith(`${l}=`)) return [w.slice(l.length + 1), 1];
  }
  for (const s of short) {
    if (w === s) return args[i + 1] !== undefined ? [args[i + 1], 2] : undefined;
    if (w.startsWith(`${s}=`)) return [w.slice(s.length + 1), 1];
  }
  return undefined;
}

/** kubectl's global flags that take a value (`kubectl --context main apply …`). */
const KUBECTL_VALUE_FLAGS = new Set(['--context', '--kubeconfig', '-n', '--namespace', '--cluster', '--user', '-s', '--server', '--as', '--token']);

/** `kubectl apply|create` with its `-k`/`--kustomize` folders and `-f`/`--filename` targets (`-` and stdin left out). */
export function kubectlApply(words: readonly string[]): { kustomize: string[]; files: string[] } | undefined {
  const args = argsOf(words, 'kubectl');
  if (!args) return undefined;
  let verb = 0;
  while (verb < args.length && args[verb].startsWith('-')) verb += KUBECTL_VALUE_FLAGS.has(args[verb]) ? 2 : 1;
  if (args[verb] !== 'apply' && args[verb] !== 'create') return undefined;
  const kustomize: string[] = [];
  const files: string[] = [];
  for (let i = verb + 1; i < args.length; ) {
    const k = flagValue(args, i, ['--kustomize'], ['-k']);
    const f = k ? undefined : flagValue(args, i, ['--filename'], ['-f']);
    const hit = k ?? f;
    if (!hit) {
      i++;
      continue;
    }
    if (hit[0] !== '-' && hit[0] !== '/dev/stdin') (k ? kustomize : files).push(hit[0]);
    i += hit[1];
  }
  return { kustomize, files };
}

/** helm flags that take a value; any other flag is a switch. */
const HELM_VALUE_FLAGS = new Set([
  '-n', '--namespace', '--version', '-f', '--values', '--set', '--set-string', '--set-file', '--set-json', '--set-literal', '--repo',
  '--timeout', '--kube-context', '--kubeconfig', '--post-renderer', '--post-renderer-args', '--description', '--username', '--password',
  '--ca-file', '--cert-file', '--key-file', '--history-max', '--labels', '-l', '--registry-config', '--repository-config', '--repository-cache',
]);

/** `helm install|upgrade [flags] RELEASE CHART`: the release, the chart and whether CRDs are skipped. */
export function helmInstall(words: readonly string[]): { release: string; chart: string; namespace?: string; skipCrds: boolean } | undefined {
  const args = argsOf(words, 'helm');
  if (!args) return undefined;
  const positional: string[] = [];
  let namespace: string | undefined;
  let skipCrds = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.startsWith('-')) {
      if (a === '--skip-crds') skipCrds = true;
      const eq = a.indexOf('=');
      const flag = eq < 0 ? a : a.slice(0, eq);
      const value = eq < 0 && HELM_VALUE_FLAGS.has(flag) ? args[++i] : a.slice(eq + 1);
      if (flag === '-n' || flag === '--namespace') namespace = value;
      continue;
    }
    positional.push(a);
  }
  if (positional[0] !== 'install' && positional[0] !== 'upgrade') return undefined;
  const [release, chart] = positional.slice(1);
  if (!release || !chart) return undefined;
  return { release, chart, namespace, skipCrds };
}

/** `helmfile [-f FILE] apply|sync|template`: the helmfile it runs (undefined: the default file of the working folder). */
export function helmfileRun(words: readonly string[]): { file: string | undefined } | undefined {
  const args = argsOf(words, 'helmfile');
  if (!args) return undefined;
  let file: string | undefined;
  let verb: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const f = flagValue(args, i, ['--file'], ['-f']);
    if (f) {
      file = f[0];
      i += f[1] - 1;
      continue;
    }
    const a = args[i];
    if (a.startsWith('-')) {
      // Global flags with a value: environment, selector, context, state values.
      if (['-e', '--environment', '-l', '--selector', '--kube-context', '--state-values-set', '--state-values-file', '-n', '--namespace'].includes(a)) i++;
      continue;
    }
    verb ??= a;
  }
  return verb === 'apply' || verb === 'sync' || verb === 'template' ? { file } : undefined;
}

/** `flux push artifact oci://<repository>:<tag> --path=<dir>`: the folder pushed as that artifact. */
export function fluxPushArtifact(words: readonly string[]): { url: string; path: string } | undefined {
  const args = argsOf(words, 'flux');
  if (!args || args[0] !== 'push' || args[1] !== 'artifact') return undefined;
  const url = args.slice(2).find((a) => a.startsWith('oci://'));
  let path: string | undefined;
  for (let i = 2; i < args.length && path === undefined; i++) path = flagValue(args, i, ['--path'], [])?.[0];
  return url && path ? { url, path } : undefined;
}

/** `flux bootstrap <provider> … --path=<p>`: the cluster folder it syncs. */
export function fluxBootstrap(words: readonly string[]): { path: string | undefined } | undefined {
  const args = argsOf(words, 'flux');
  if (!args || args[0] !== 'bootstrap') return undefined;
  for (let i = 1; i < args.length; i++) {
    const p = flagValue(args, i, ['--path'], []);
    if (p) return { path: p[0] };
  }
  return { path: undefined };
}
