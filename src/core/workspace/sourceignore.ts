/**
 * `.sourceignore` matching as source-controller does it: gitignore syntax, the controller's default
 * excludes, and `.sourceignore` files at any depth applying to paths below them.
 */

/** Patterns source-controller excludes from every Git artifact before any `.sourceignore`. */
export const DEFAULT_SOURCE_IGNORE = [
  '.git/',
  '.gitignore',
  '.gitmodules',
  '.gitattributes',
  '*.jpg',
  '*.jpeg',
  '*.gif',
  '*.png',
  '*.wmv',
  '*.flv',
  '*.tar.gz',
  '*.zip',
  '.github/',
  '.circleci/',
  '.travis.yml',
  '.gitlab-ci.yml',
  'appveyor.yml',
  '.drone.yml',
  'cloudbuild.yaml',
  'codeship-services.yml',
  'codeship-steps.yml',
  '**/.goreleaser.yml',
  '**/.sops.yaml',
  '**/.flux.yaml',
];

interface Rule {
  regex: RegExp;
  negate: boolean;
  dirOnly: boolean;
}

function globToRegex(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // `**/` matches zero or more directories, a trailing `**` everything below.
        if (glob[i + 2] === '/') {
          out += '(?:.*/)?';
          i += 2;
        } else {
          out += '.*';
          i += 1;
        }
      } else {
        out += '[^/]*';
      }
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close === -1) out += '\\[';
      else {
        let cls = glob.slice(i + 1, close);
        if (cls.startsWith('!')) cls = '^' + cls.slice(1);
        out += `[${cls.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else if (c === '\\' && i + 1 < glob.length) {
      out += '\\' + glob[++i];
    } else {
      out += /[.+^${}()|\\]/.test(c) ? '\\' + c : c;
    }
  }
  return out;
}

export function compileIgnore(lines: readonly string[]): Rule[] {
  const rules: Rule[] = [];
  for (let raw of lines) {
    raw = raw.replace(/\r$/, '');
    if (!raw.trim() || raw.startsWith('#')) continue;
    let line = raw.replace(/(?<!\\)\s+$/, '');
    let negate = false;
    if (line.startsWith('!')) {
      negate = true;
      line = line.slice(1);
    }
    let dirOnly = false;
    if (line.endsWith('/')) {
      dirOnly = true;
      line = line.slice(0, -1);
    }
    // A pattern with a slash (other than trailing) is anchored to the .sourceignore's directory.
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    const body = globToRegex(line);
    const regex = new RegExp(anchored ? `^${body}(?:/.*)?$` : `^(?:.*/)?${body}(?:/.*)?$`);
    rules.push({ regex, negate, dirOnly });
  }
  return rules;
}

/** A stack of rule sets, each scoped to a directory (relative to the source root, '' for the root). */
export class IgnoreMatcher {
  private readonly scopes: { dir: string; rules: Rule[] }[] = [];

  add(dir: string, lines: readonly string[]): void {
    this.scopes.push({ dir, rules: compileIgnore(lines) });
  }

  /** `rel` is relative to the source root with `/` separators. */
  ignores(rel: string, isDirectory: boolean): boolean {
    let ignored = false;
    for (const scope of this.scopes) {
      let sub = rel;
      if (scope.dir) {
        if (!rel.startsWith(scope.dir + '/')) continue;
        sub = rel.slice(scope.dir.length + 1);
      }
      for (const rule of scope.rules) {
        if (!rule.regex.test(sub)) continue;
        // A dir-only rule matches a file only through one of its parent directories.
        if (rule.dirOnly && !isDirectory && !hasMatchingParent(rule.regex, sub)) continue;
        ignored = !rule.negate;
      }
    }
    return ignored;
  }
}

function hasMatchingParent(regex: RegExp, path: string): boolean {
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i++) {
    if (regex.test(parts.slice(0, i).join('/'))) return true;
  }
  return false;
}
