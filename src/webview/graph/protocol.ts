import type { DependencyGraph } from '../../core/graph/types';
import type { LiveState } from '../../core/status/conditions';

/** Messages between the extension and the graph webview: plain data, nothing executable. */

export interface LiveNodeStatus {
  state: LiveState;
  message?: string;
}

/** A document location: relative file and 1-based line of the document start, as graph nodes carry. */
export interface DocLocation {
  file: string;
  line: number;
}

export type ToWebview =
  | {
      type: 'graph';
      graph: DependencyGraph;
      /** Cluster to show (a tree cluster node's), when the user asked for one. */
      cluster?: string;
      /** Per cluster name, per node id; absent when not connected. */
      live?: Record<string, Record<string, LiveNodeStatus>>;
    }
  | { type: 'highlight'; locations: DocLocation[] };

export type FromWebview = { type: 'ready' } | { type: 'open'; file: string; line: number };
