/**
 * The shape of every finding's message: a first line that says what fails and the fix (an editor's
 * problem list, a CI annotation and `check`'s text show it alone), then the explanation on the
 * lines after it. Names in the first line come from the repository and can be long: the line is
 * cut to fit, and the explanation still holds them whole.
 */
export const FIRST_LINE_MAX = 159;

export function findingMessage(first: string, ...details: (string | undefined | false)[]): string {
  return [fitLine(first), ...details.filter((d): d is string => !!d)].join('\n');
}

/** One line of at most `max` characters: line breaks shown as spaces, the end cut with `…`. */
export function fitLine(text: string, max = FIRST_LINE_MAX): string {
  const line = text.replace(/\r?\n/g, ' ');
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** `text` with the repository root's absolute path taken out of every path it holds. */
export function relativeIn(text: string, root: string): string {
  const prefix = `${root}/`;
  return text.includes(prefix) ? text.split(prefix).join('') : text;
}

/**
 * A failed build's message (the build's own error, which kustomize or the post-build step wrote),
 * shaped as a finding: the Kustomization and the error's gist first, the whole error after it.
 */
export function buildFailedMessage(raw: string): string {
  const colon = raw.startsWith('Kustomization ') ? raw.indexOf(': ') : -1;
  const label = colon > 0 ? raw.slice(0, colon) : 'The Kustomization';
  const error = colon > 0 ? raw.slice(colon + 2) : raw;
  const STRICT = 'variable not set (strict mode): ';
  const at = error.lastIndexOf(STRICT);
  if (at >= 0) {
    const variable = error.slice(at + STRICT.length).split('\n')[0].replace(/^"|"$/g, '');
    return findingMessage(
      `${label} fails post-build: \${${variable}} is not set; define it in postBuild, give it a default or escape it as $\${${variable}}.`,
      `Flux fails with: ${error}`,
    );
  }
  return findingMessage(`${label} fails to build: ${error}`, `The error: ${error}`, 'Until it is fixed, what it applies is read from its files as written.');
}
