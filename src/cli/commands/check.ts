import { RULE_DESCRIPTIONS, RULES, type RuleId } from '../../core/checks/types';
import { relativeFinding, type RelativeFinding } from '../../core/checks/relative';
import { githubData, githubProperty } from '../../core/escape/github';
import { jsonOutput } from '../../core/escape/json';
import { terminalName, terminalText } from '../../core/escape/terminal';
import type { EngineDiagnostic } from '../../engine/protocol';
import { EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, parseArgs, UsageError, type CliIO } from '../io';
import { openWorkspace } from '../workspace';

const FORMATS = ['text', 'json', 'sarif', 'github'] as const;
type Format = (typeof FORMATS)[number];

/** A diagnostic as the CLI contract shows it: path relative to DIR, 1-based line and column. */
export interface CliDiagnostic extends RelativeFinding {
  rule: RuleId;
  /** Only on findings the repository silenced (`.gitops-preview.yaml`, `# gitops-preview:` comments). */
  suppression?: { kind: 'inSource' | 'external'; justification: string };
}

export async function runCheck(args: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(args, { values: ['format'] });
  const format = (flags.format as string | undefined) ?? 'text';
  if (!FORMATS.includes(format as Format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, not '${format}'`);
  if (positionals.length > 1) throw new UsageError('expects at most one DIR');
  const { engine, root } = await openWorkspace(positionals[0], io);
  const result = await engine.request('check', { root });
  for (const f of result.failures) io.stderr(`gitops-preview check: internal error in ${f.rules} rules: ${terminalText(f.message)}\n`);
  const diagnostics = result.diagnostics.map((d) => toCli(root, d));
  const suppressed = result.suppressed.map((d) => ({ ...toCli(root, d), suppression: d.suppression }));
  io.stdout(render(format as Format, diagnostics, suppressed));
  if (result.failures.length) return EXIT_USAGE;
  return diagnostics.some((d) => d.severity === 'error') ? EXIT_FINDINGS : EXIT_OK;
}

export function toCli(root: string, d: EngineDiagnostic): CliDiagnostic {
  return { ...relativeFinding(root, d), rule: d.rule as RuleId };
}

export function render(format: Format, list: CliDiagnostic[], suppressed: CliDiagnostic[] = []): string {
  switch (format) {
    case 'json':
      return jsonOutput({ diagnostics: list, suppressed });
    case 'sarif':
      return jsonOutput(sarif([...list, ...suppressed]));
    case 'github':
      return list.map(githubAnnotation).join('');
    default:
      return text(list);
  }
}

/**
 * `file:line:col: severity [rule] first line`, then the message's other lines and the related
 * locations, each behind a marker so that no repository text starts a line.
 */
function text(list: CliDiagnostic[]): string {
  const lines = list.map((d) => {
    const [first, ...details] = d.message.split('\n');
    return [
      `${terminalName(d.file)}:${d.line}:${d.column}: ${d.severity} [${d.rule}] ${terminalText(first)}\n`,
      ...details.map((l) => `  | ${terminalText(l)}\n`),
      ...d.related.map((r) => `  > ${terminalName(r.file)}:${r.line}:${r.column}: ${terminalText(r.message)}\n`),
    ].join('');
  });
  const count = (s: string) => list.filter((d) => d.severity === s).length;
  lines.push(`${count('error')} error(s), ${count('warning')} warning(s), ${count('info')} info\n`);
  return lines.join('');
}

/** GitHub workflow commands: `::error file=…,line=…,col=…,title=…::message`, repository text escaped. */
export function githubAnnotation(d: Omit<CliDiagnostic, 'related' | 'rule'> & { rule: string; related?: CliDiagnostic['related'] }): string {
  const level = d.severity === 'info' ? 'notice' : d.severity;
  const message = [d.message, ...(d.related ?? []).map((r) => `${r.file}:${r.line}:${r.column}: ${r.message}`)].join('\n');
  return `::${level} file=${githubProperty(d.file)},line=${d.line},col=${d.column},endLine=${d.endLine},endColumn=${d.endColumn},title=${githubProperty(d.rule)}::${githubData(message)}\n`;
}

function sarif(list: CliDiagnostic[]): unknown {
  const ruleIds = Object.keys(RULES) as RuleId[];
  const region = (line: number, column: number, endLine?: number, endColumn?: number) => ({
    startLine: line,
    startColumn: column,
    ...(endLine ? { endLine, endColumn } : {}),
  });
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'gitops-preview',
            informationUri: 'https://fluxcd.io/flux/',
            rules: ruleIds.map((id) => ({
              id,
              shortDescription: { text: RULE_DESCRIPTIONS[id] },
              defaultConfiguration: { level: sarifLevel(RULES[id]) },
            })),
          },
        },
        originalUriBaseIds: { SRCROOT: { uri: './' } },
        results: list.map((d) => ({
          ruleId: d.rule,
          ruleIndex: ruleIds.indexOf(d.rule),
          level: sarifLevel(d.severity),
          message: { text: d.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: encodeUri(d.file), uriBaseId: 'SRCROOT' },
                region: region(d.line, d.column, d.endLine, d.endColumn),
              },
            },
          ],
          ...(d.suppression ? { suppressions: [{ kind: d.suppression.kind, justification: d.suppression.justification }] } : {}),
          ...(d.related.length
            ? {
                relatedLocations: d.related.map((r, i) => ({
                  id: i,
                  message: { text: r.message },
                  physicalLocation: { artifactLocation: { uri: encodeUri(r.file), uriBaseId: 'SRCROOT' }, region: region(r.line, r.column) },
                })),
              }
            : {}),
        })),
      },
    ],
  };
}

function sarifLevel(s: string): 'error' | 'warning' | 'note' {
  return s === 'error' ? 'error' : s === 'warning' ? 'warning' : 'note';
}

function encodeUri(rel: string): string {
  return rel.split('/').map(encodeURIComponent).join('/');
}
