import * as vscode from 'vscode';
import type { EngineDiagnostic, Range } from '../../engine/protocol';

export function toVscodeRange(r: Range): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

const SEVERITY: Record<EngineDiagnostic['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

export function toVscodeDiagnostic(d: EngineDiagnostic): vscode.Diagnostic {
  const out = new vscode.Diagnostic(toVscodeRange(d.range), d.message, SEVERITY[d.severity]);
  out.code = d.rule;
  out.source = 'gitops-preview';
  if (d.related.length) {
    out.relatedInformation = d.related.map((r) => new vscode.DiagnosticRelatedInformation(new vscode.Location(vscode.Uri.file(r.file), toVscodeRange(r.range)), r.message));
  }
  return out;
}

/** Same rule and start position: how a VS Code diagnostic is matched back to the engine's. */
export function sameDiagnostic(v: vscode.Diagnostic, d: { rule: string; start: { line: number; character: number } }): boolean {
  return v.code === d.rule && v.range.start.line === d.start.line && v.range.start.character === d.start.character;
}
