/**
 * Values parsed from YAML texts, kept by the text: kustomization files are read again by every
 * build of each Kustomization above them and rarely change, and parsing them was most of
 * preparing a build. A parse error is kept too (rethrown). Callers must not modify the values.
 */
export class ParsedByText<T> {
  private readonly kept = new Map<string, { value: T } | { error: unknown }>();

  constructor(
    private readonly parse: (text: string) => T,
    private readonly limit = 4096,
  ) {}

  get(text: string): T {
    let entry = this.kept.get(text);
    if (!entry) {
      try {
        entry = { value: this.parse(text) };
      } catch (error) {
        entry = { error };
      }
      if (this.kept.size >= this.limit) this.kept.clear();
      this.kept.set(text, entry);
    }
    if ('error' in entry) throw entry.error;
    return entry.value;
  }
}
