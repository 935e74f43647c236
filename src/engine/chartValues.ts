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
  private readonly kept = new Map<string, { texts: string; values: ChartValues }>();

  constructor(private readonly ws: Workspace) {}

  /** The values knowledge of the chart in `dir`, or undefined when it has no Chart.yaml. */
  read(dir: string, depth = 0): ChartValues | undefined {
    const chartYaml = this.text(path.join(dir, 'Chart.yaml'));
    if (chartYaml === undefined) return undefined;
    const schema = this.text(path.join(dir, 'values.schema.json'));
    const values = this.text(path.join(dir, 'values.yaml'));
    const subDirs = depth < MAX_DEPTH ? subchartDirs(dir) : [];
    const texts = JSON.stringify([chartYaml, schema, values, subDirs]);
    const kept = this.kept.get(dir);
    let own: ChartValues;
    if (kept && kept.texts === texts && depth === 0) own = kept.values;
    else {
      const subcharts: Record<string, ChartValues> = {};
      for (const sub of subDirs) {
        const got = this.read(path.join(dir, 'charts', sub), depth + 1);
        const name = nameOf(this.text(path.join(dir, 'charts', sub, 'Chart.yaml'))) ?? sub;
        if (got && !Object.prototype.hasOwnProperty.call(subcharts, name)) subcharts[name] = got;
      }
      const meta = metaOf(chartYaml);
      own = chartValuesOf(meta ? `${meta.name}@${meta.version}` : path.basename(dir), schema, values, subcharts);
      if (depth === 0) {
        if (this.kept.size >= MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
        this.kept.set(dir, { texts, values: own });
      }
    }
    return own;
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
