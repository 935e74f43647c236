/**
 * Tarjan's strongly connected components, iterative so that a long chain or ring of references
 * (thousands of dependsOn entries, Kustomizations applying each other) cannot exhaust the stack.
 * Returns each vertex's component number; vertices of one cycle share a number.
 */
export function stronglyConnected<T>(vertices: Iterable<T>, next: (v: T) => readonly T[]): Map<T, number> {
  const indexOf = new Map<T, number>();
  const low = new Map<T, number>();
  const onStack = new Set<T>();
  const stack: T[] = [];
  const component = new Map<T, number>();
  let counter = 0;
  let components = 0;
  const strong = (root: T) => {
    const work: { v: T; i: number; out: readonly T[] }[] = [{ v: root, i: 0, out: next(root) }];
    indexOf.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const frame = work[work.length - 1];
      if (frame.i < frame.out.length) {
        const w = frame.out[frame.i++];
        if (!indexOf.has(w)) {
          indexOf.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0, out: next(w) });
        } else if (onStack.has(w)) low.set(frame.v, Math.min(low.get(frame.v)!, indexOf.get(w)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].v;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.v)!));
      }
      if (low.get(frame.v) === indexOf.get(frame.v)) {
        let w: T;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.set(w, components);
        } while (w !== frame.v);
        components++;
      }
    }
  };
  for (const v of vertices) if (!indexOf.has(v)) strong(v);
  return component;
}
