import { Composer, Lexer, Parser, type Document, type DocumentOptions, type ParseOptions, type SchemaOptions } from 'yaml';

/** The lexer's marker before a scalar's text: that text is content, never an alias. */
const SCALAR = '\u001f';

/**
 * The YAML library's documents for `text`, with alias names ended where go-yaml (kyaml,
 * sigs.k8s.io/yaml: what kustomize and Flux read) ends them. YAML 1.2 lets a name hold `:`, so the
 * library reads the map key `*app:` as an alias named `app:` and then misses the key's `:`; go-yaml
 * names hold only letters, digits, `_` and `-`, so it reads the alias `app` used as a key. Such a
 * lexeme is split in two, which keeps every offset. Linear in the text.
 */
export function* composeGo(
  text: string,
  options: ParseOptions & DocumentOptions & SchemaOptions,
  onNewLine?: (offset: number) => void,
  forceDoc = false,
): Generator<Document.Parsed> {
  const parser = new Parser(onNewLine);
  function* tokens() {
    onNewLine?.(0);
    let previous = '';
    for (const lexeme of new Lexer().lex(text)) {
      const split = previous !== SCALAR && lexeme.length > 2 && lexeme.endsWith(':') && lexeme[0] === '*' && goName(lexeme, 1, lexeme.length - 1);
      if (split) {
        yield* parser.next(lexeme.slice(0, -1));
        yield* parser.next(':');
      } else yield* parser.next(lexeme);
      previous = lexeme;
    }
    yield* parser.end();
  }
  yield* new Composer(options).compose(tokens(), forceDoc, text.length) as Generator<Document.Parsed>;
}

/** Whether `s[from, to)` is all characters go-yaml allows in an anchor or alias name (its `is_alpha`). */
function goName(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    const ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;
    if (!ok) return false;
  }
  return true;
}
