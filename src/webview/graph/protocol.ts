import type { DependencyGraph, GraphLive } from '../../core/graph/types';

export type { LiveNodeStatus } from '../../core/graph/types';

/** Messages between the extension and the graph webview: plain data, nothing executable. */

export type ToWebview =
  | {
      type: 'graph';
      graph: DependencyGraph;
      /** Cluster to show (a tree cluster node's), when the user asked for one. */
      cluster?: string;
      /** Per cluster name, per node id; absent when not connected. */
      live?: GraphLive;
    }
  /** Node ids (the engine's graphNodesAt) of what the editor or the tree points at. */
  | { type: 'highlight'; nodes: string[] };

export type FromWebview = { type: 'ready' } | { type: 'open'; file: string; line: number };
