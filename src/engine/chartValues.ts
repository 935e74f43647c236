/**
 * A chart's values files, read for hover and completion inside `spec.values`
 * (core/helm/chartValues.ts), from the chart folder the model's render uses: a workspace chart
 * (editor buffers count) or the chart cache's unpacked package. Never the network. Parsed once
 * per content: a hover re-reads the texts and reuses what they parsed to when unchanged.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { chartValuesOf, type ChartValues } from '../core/helm/chartValues';
import type { Workspace } from '../core/workspace/workspace';
import { QUIET } from '../core/yaml/document';

/** Larger values files are not read (app-template's dereferenced schema is 574 kB). */
const MAX_FILE_BYTES = 8 * 1024 * 1024;
/** Subcharts below subcharts, as helm nests them in charts/. */
const MAX_DEPTH = 3;
/** Chart folders kept parsed. */
const MAX_KEPT = 32;

export class ChartValuesReader {
  private readonly kept = new Map<string, { texts: string; stamps: readonly Stamp[]; values: ChartValues }>();

  constructor(private readonly ws: Workspace) {}

  /** The values knowledge of the chart in `dir`, or undefined when it has no Chart.yaml. */
  read(dir: string, depth = 0): ChartValues | undefined {
    const subDirs = depth < MAX_DEPTH ? subchartDirs(dir) : [];
    const kept = depth === 0 ? this.kept.get(dir) : undefined;
    // Unchanged files are not read again (app-template's values.schema.json is 574 kB): a file
    // outside the workspace by its size and times, a workspace file (an editor buffer) by its text.
    const stamps = [...FILES.map((f) => this.stamp(path.join(dir, f))), subDirs.join('/')];
    if (kept && sameStamps(kept.stamps, stamps)) return kept.values;
    const chartYaml = this.text(path.join(dir, 'Chart.yaml'));
    if (chartYaml === undefined) return undefined;
    const schema = this.text(path.join(dir, 'values.schema.json'));
    const values = this.text(path.join(dir, 'values.yaml'));
    const texts = JSON.stringify([chartYaml, schema, values, subDirs]);
    let own: ChartValues;
    if (kept && kept.texts === texts) {
      own = kept.values;
      this.kept.set(dir, { ...kept, stamps });
    } else {
      const subcharts: Record<string, ChartValues> = {};
      for (const sub of subDirs) {
        const got = this.read(path.join(dir, 'charts', sub), depth + 1);
        const name = nameOf(this.text(path.join(dir, 'charts', sub, 'Chart.yaml'))) ?? sub;
        if (got && !Object.prototype.hasOwnProperty.call(subcharts, name)) subcharts[name] = got;
      }
      const meta = metaOf(chartYaml);
      own = chartValuesOf(meta ? `${meta.name}@${meta.version}` : path.basename(dir), schema, values, subcharts);
      if (depth === 0) {
        this.kept.delete(dir);
        if (this.kept.size >= MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
        this.kept.set(dir, { texts, stamps, values: own });
      }
    }
    return own;
  }

  /**
   * What tells a file's version without reading it: a workspace file's text (the workspace holds
   * it), else the disk's size, modification and change times and inode; null when absent.
   */
  private stamp(file: string): Stamp {
    const posix = file.split(path.sep).join('/');
    if (this.ws.files.has(posix)) return this.ws.readText(posix) ?? null;
    try {
      const st = fs.lstatSync(file, { bigint: true });
      return st.isFile() ? `${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}` : null;
    } catch {
      return null;
    }
  }

  /** A file's text: the workspace's (an editor buffer) for a workspace file, else the disk's, bounded. */
  private text(file: string): string | undefined {
    const posix = file.split(path.sep).join('/');
    if (this.ws.files.has(posix)) return this.ws.readText(posix);
    try {
      const st = fs.lstatSync(file);
      if (!st.isFile() || st.size > MAX_FILE_BYTES) return undefined;
      return fs.readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
  }
}

/** The files of a chart folder `read` parses. */
const FILES = ['Chart.yaml', 'values.schema.json', 'values.yaml'];

/** A file's version (ChartValuesReader.stamp). */
type Stamp = string | null;

function sameStamps(a: readonly Stamp[], b: readonly Stamp[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Unpacked subchart folders (charts/<name>/Chart.yaml); packaged ones (.tgz) are not opened here. */
function subchartDirs(dir: string): string[] {
  try {
    return fs
      .readdirSync(path.join(dir, 'charts'), { withFileTypes: true })
      .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, 'charts', e.name, 'Chart.yaml')))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

function metaOf(chartYaml: string): { name: string; version: string } | undefined {
  try {
    const m = parseYaml(chartYaml, QUIET) as Record<string, unknown> | null;
    return m && typeof m.name === 'string' ? { name: m.name, version: String(m.version ?? '') } : undefined;
  } catch {
    return undefined;
  }
}

function nameOf(chartYaml: string | undefined): string | undefined {
  return chartYaml === undefined ? undefined : metaOf(chartYaml)?.name;
}
