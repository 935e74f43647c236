/**
 * The Flux tree as plain items. Nodes are kept per model version so `treeChildren(id)` can expand
 * them; ids are stable across versions (folder root + the view model's id), so the editor keeps
 * expansion state.
 */
import type { RepoModel } from '../core/model/graph';
import { childrenOf, pathsTo, present, rootNodes, type LiveLookup, type TreeNode } from '../core/tree/viewModel';
import type { TreeItemData } from './protocol';
import { refOfApplied } from './targets';

export interface TreeFolder {
  readonly root: string;
  model(): RepoModel;
}

interface Held {
  folder: TreeFolder;
  node: TreeNode | undefined;
  model: RepoModel;
}

const FOLDER_PREFIX = 'folder:';

export class TreeIndex {
  private readonly held = new Map<string, Held>();
  private readonly items = new Map<string, TreeItemData>();
  /** Children listed per node until the next model change (ids and node objects stay in step). */
  private readonly listed = new Map<string, TreeItemData[]>();

  /** The model each folder's listings came from. */
  private readonly listedFrom = new Map<string, RepoModel>();

  constructor(private readonly live: () => LiveLookup | undefined) {}

  /** Forget every node: the next request starts from the roots of the current models. */
  reset(): void {
    this.held.clear();
    this.items.clear();
    this.listed.clear();
    this.listedFrom.clear();
  }

  roots(folders: readonly TreeFolder[]): TreeItemData[] {
    // A build round rebuilds the models before the engine resets the tree at its end: listings of
    // an older model would hand out items whose nodes no request can find any more.
    if (folders.some((f) => this.listedFrom.has(f.root) && this.listedFrom.get(f.root) !== f.model())) this.reset();
    let items = this.listed.get('');
    if (!items) {
      for (const f of folders) this.listedFrom.set(f.root, f.model());
      items = this.topLevel(folders);
      this.listed.set('', items);
    }
    return items;
  }

  private topLevel(folders: readonly TreeFolder[]): TreeItemData[] {
    if (folders.length === 1) return this.nodes(folders[0], folders[0].model(), rootNodes(folders[0].model(), this.live()));
    return folders.map((folder) => {
      const id = FOLDER_PREFIX + folder.root;
      const model = folder.model();
      this.held.set(id, { folder, node: undefined, model });
      const name = folder.root.slice(folder.root.lastIndexOf('/') + 1) || folder.root;
      const item: TreeItemData = {
        id,
        label: name,
        description: `${model.clusters.length} cluster${model.clusters.length === 1 ? '' : 's'}`,
        tooltip: folder.root.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, '\\$&'),
        contextValue: 'folder',
        collapsible: 'expanded',
        icon: { codicon: 'root-folder' },
      };
      this.items.set(id, item);
      return item;
    });
  }

  /**
   * `folders`: the workspace folders now. A folder item's children are its clusters in the current
   * model whatever happened since it was listed: the editor keeps the top level it was sent with a
   * change, and may ask for a folder's children after the tree was reset with no change left to
   * follow (a two-folder window once stayed with an expanded, empty folder).
   */
  children(id: string, folders: readonly TreeFolder[] = []): TreeItemData[] {
    const cached = this.listed.get(id);
    if (cached) return cached;
    let held = this.held.get(id);
    if ((!held || held.folder.model() !== held.model) && id.startsWith(FOLDER_PREFIX)) {
      const folder = folders.find((f) => FOLDER_PREFIX + f.root === id);
      if (folder) this.held.set(id, (held = { folder, node: undefined, model: folder.model() }));
    }
    if (!held) return [];
    const { folder, node } = held;
    const model = folder.model();
    if (model !== held.model) return []; // stale handle: the editor refreshes from the roots
    const items = this.nodes(folder, model, node ? childrenOf(node) : rootNodes(model, this.live()));
    this.listed.set(id, items);
    return items;
  }

  /** The folder and view-model node behind an item listed since the last model change (none for a folder item). */
  nodeOf(id: string): { folder: TreeFolder; node: TreeNode | undefined } | undefined {
    const held = this.held.get(id);
    return held && held.folder.model() === held.model ? { folder: held.folder, node: held.node } : undefined;
  }

  /** Items from a root down to the first place `objectId` appears. */
  pathTo(folders: readonly TreeFolder[], folder: TreeFolder, objectId: string): TreeItemData[] {
    const model = folder.model();
    const top = this.roots(folders);
    const prefix: TreeItemData[] = folders.length === 1 ? [] : top.filter((i) => i.id === FOLDER_PREFIX + folder.root);
    const roots = folders.length === 1 ? top : this.children(FOLDER_PREFIX + folder.root);
    const rootNodesHeld = roots.map((i) => this.held.get(i.id)!.node!);
    const kids = (n: TreeNode): TreeNode[] => this.children(this.idOf(folder, n)).map((i) => this.held.get(i.id)!.node!);
    const paths = pathsTo(model, objectId, rootNodesHeld, kids);
    if (!paths.length) return [];
    return [...prefix, ...paths[0].map((n) => this.items.get(this.idOf(folder, n))!)];
  }

  private idOf(folder: TreeFolder, node: TreeNode): string {
    return `${folder.root}|${node.id}`;
  }

  private nodes(folder: TreeFolder, model: RepoModel, nodes: TreeNode[]): TreeItemData[] {
    const live = this.live();
    return nodes.map((node) => {
      const id = this.idOf(folder, node);
      this.held.set(id, { folder, node, model });
      const p = present(node, model, live);
      const item: TreeItemData = {
        id,
        label: p.label,
        description: p.description,
        tooltip: p.tooltip,
        contextValue: p.contextValue,
        collapsible: p.collapsible,
        icon: p.icon,
        location: p.location,
        target: targetOf(node),
      };
      this.items.set(id, item);
      return item;
    });
  }
}

function targetOf(node: TreeNode): TreeItemData['target'] {
  if (node.type === 'flux' || node.type === 'resource') return { ...refOfApplied(node.applied), cluster: node.applied.cluster.name };
  if (node.type === 'clusterOnly') return { kind: node.status.kind, namespace: node.status.namespace, name: node.status.name };
  return undefined;
}
