/**
 * Reads Python literals as `repr()` writes them — dicts, lists, tuples, strings in either quote, numbers,
 * True/False/None — and JSON too (double quotes, true/false/null), into JSON values. StableToolBench keys its cache
 * by `str(tool_input)` and many recorded responses are Python reprs, so both need it.
 */
export function parsePythonLiteral(text: string): unknown {
  const parser = new Parser(text);
  parser.space();
  const value = parser.value();
  parser.space();
  if (parser.pos < text.length) parser.fail('unexpected text after the value');
  return value;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  n: '\n',
  r: '\r',
  t: '\t',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
  '\n': '',
};
const WORDS: Record<string, unknown> = { True: true, False: false, None: null, true: true, false: false, null: null };

class Parser {
  pos = 0;
  constructor(private readonly text: string) {}

  fail(message: string): never {
    throw new SyntaxError(`${message} at position ${this.pos}`);
  }

  space(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos]!)) this.pos++;
  }

  value(): unknown {
    const c = this.text[this.pos];
    if (c === '{') return this.dict();
    if (c === '[') return this.sequence('[', ']');
    if (c === '(') return this.sequence('(', ')');
    if (c === "'" || c === '"') return this.string();
    if (
      (c === 'u' || c === 'b' || c === 'U' || c === 'B') &&
      (this.text[this.pos + 1] === "'" || this.text[this.pos + 1] === '"')
    ) {
      this.pos++;
      return this.string();
    }
    if (c !== undefined && /[-+0-9.]/.test(c)) return this.number();
    const word = /^[A-Za-z_]+/.exec(this.text.slice(this.pos, this.pos + 8))?.[0];
    if (word !== undefined && word in WORDS) {
      this.pos += word.length;
      return WORDS[word];
    }
    return this.fail(c === undefined ? 'unexpected end' : `unexpected ${JSON.stringify(c)}`);
  }

  private expect(c: string): void {
    if (this.text[this.pos] !== c) this.fail(`expected ${JSON.stringify(c)}`);
    this.pos++;
  }

  private dict(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.expect('{');
    this.space();
    while (this.text[this.pos] !== '}') {
      const key = this.value();
      if (key !== null && typeof key === 'object') this.fail('dict keys must be strings or numbers');
      this.space();
      this.expect(':');
      this.space();
      Object.defineProperty(out, String(key), {
        value: this.value(),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.space();
      if (this.text[this.pos] !== ',') break;
      this.pos++;
      this.space();
    }
    this.expect('}');
    return out;
  }

  private sequence(open: string, close: string): unknown[] {
    const out: unknown[] = [];
    this.expect(open);
    this.space();
    while (this.text[this.pos] !== close) {
      out.push(this.value());
      this.space();
      if (this.text[this.pos] !== ',') break;
      this.pos++;
      this.space();
    }
    this.expect(close);
    return out;
  }

  private string(): string {
    const quote = this.text[this.pos]!;
    const triple = this.text.startsWith(quote.repeat(3), this.pos);
    const end = triple ? quote.repeat(3) : quote;
    this.pos += end.length;
    let out = '';
    for (;;) {
      if (this.pos >= this.text.length) this.fail('unterminated string');
      if (this.text.startsWith(end, this.pos)) {
        this.pos += end.length;
        return out;
      }
      const c = this.text[this.pos]!;
      if (c !== '\\') {
        out += c;
        this.pos++;
        continue;
      }
      const e = this.text[this.pos + 1];
      if (e === undefined) this.fail('unterminated escape');
      if (e in SIMPLE_ESCAPES) {
        out += SIMPLE_ESCAPES[e];
        this.pos += 2;
      } else if (e === 'x' || e === 'u' || e === 'U') {
        const digits = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        const hex = this.text.slice(this.pos + 2, this.pos + 2 + digits);
        if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex)) this.fail(`bad \\${e} escape`);
        const point = Number.parseInt(hex, 16);
        if (point > 0x10ffff) this.fail('code point out of range');
        out += String.fromCodePoint(point);
        this.pos += 2 + digits;
      } else if (/[0-7]/.test(e)) {
        const octal = /^[0-7]{1,3}/.exec(this.text.slice(this.pos + 1))![0];
        out += String.fromCharCode(Number.parseInt(octal, 8));
        this.pos += 1 + octal.length;
      } else {
        // Python keeps unknown escapes as written.
        out += `\\${e}`;
        this.pos += 2;
      }
    }
  }

  private number(): number {
    const match = /^[-+]?(\d[\d_]*)?(\.\d*)?([eE][-+]?\d+)?/.exec(this.text.slice(this.pos));
    const literal = match?.[0] ?? '';
    if (!/\d/.test(literal)) this.fail('bad number');
    const value = Number(literal.replace(/_/g, ''));
    if (!Number.isFinite(value)) this.fail('number out of range');
    this.pos += literal.length;
    return value;
  }
}
