import { closeSync, mkdirSync, openSync, readFileSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * One index file: a JSON header followed by typed-array sections, each 8-byte aligned so that loading is
 * a single read and the arrays are views over it (no parsing of the numbers).
 *
 *   "TOOLENVX" | u32 header length | header JSON | padding | section bytes …
 */
const MAGIC = 'TOOLENVX';

export type Section = Float32Array | Uint32Array | Uint16Array | Uint8Array | string;
type SectionType = 'f32' | 'u32' | 'u16' | 'u8' | 'utf8';

interface SectionEntry {
  type: SectionType;
  offset: number;
  bytes: number;
}

export interface IndexFile<H> {
  header: H;
  sections: Record<string, Section>;
}

export class IndexFileError extends Error {}

function typeOf(section: Section): SectionType {
  if (typeof section === 'string') return 'utf8';
  if (section instanceof Float32Array) return 'f32';
  if (section instanceof Uint32Array) return 'u32';
  if (section instanceof Uint16Array) return 'u16';
  return 'u8';
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;

/** Writes the file next to its final name first, then renames: a reader never sees half an index. */
export function writeIndexFile<H extends object>(file: string, header: H, sections: Record<string, Section>): void {
  const bodies: { name: string; type: SectionType; bytes: Uint8Array }[] = Object.entries(sections).map(
    ([name, s]) => ({
      name,
      type: typeOf(s),
      bytes: typeof s === 'string' ? Buffer.from(s, 'utf8') : new Uint8Array(s.buffer, s.byteOffset, s.byteLength),
    }),
  );
  let offset = 0;
  const table: Record<string, SectionEntry> = {};
  for (const body of bodies) {
    table[body.name] = { type: body.type, offset, bytes: body.bytes.byteLength };
    offset = align8(offset + body.bytes.byteLength);
  }
  const headerBytes = Buffer.from(JSON.stringify({ header, sections: table }), 'utf8');
  const start = align8(MAGIC.length + 4 + headerBytes.byteLength);
  const out = Buffer.alloc(start + offset);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(headerBytes.byteLength, MAGIC.length);
  headerBytes.copy(out, MAGIC.length + 4);
  for (const body of bodies) out.set(body.bytes, start + table[body.name]!.offset);
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, out);
  renameSync(tmp, file);
}

/** Reads only the header: enough to tell whether an index is current without loading its arrays. */
export function readIndexHeader<H>(file: string): H {
  const fd = openSync(file, 'r');
  try {
    const prefix = Buffer.alloc(MAGIC.length + 4);
    readSync(fd, prefix, 0, prefix.length, 0);
    const length = prefix.toString('latin1', 0, MAGIC.length) === MAGIC ? prefix.readUInt32LE(MAGIC.length) : 0;
    const head = Buffer.alloc(prefix.length + length);
    readSync(fd, head, 0, head.length, 0);
    return parse<H>(head, file, false).header;
  } finally {
    closeSync(fd);
  }
}

export function readIndexFile<H>(file: string): IndexFile<H> {
  return parse<H>(readFileSync(file), file, true);
}

function parse<H>(buf: Buffer, file: string, withSections: boolean): IndexFile<H> {
  if (buf.byteLength < MAGIC.length + 4 || buf.toString('latin1', 0, MAGIC.length) !== MAGIC) {
    throw new IndexFileError(`${file} is not a ToolEnv index file; rebuild it with \`toolenv search index\``);
  }
  const headerLength = buf.readUInt32LE(MAGIC.length);
  const { header, sections: table } = JSON.parse(
    buf.toString('utf8', MAGIC.length + 4, MAGIC.length + 4 + headerLength),
  ) as {
    header: H;
    sections: Record<string, SectionEntry>;
  };
  const sections: Record<string, Section> = {};
  if (!withSections) return { header, sections };
  const start = align8(MAGIC.length + 4 + headerLength);
  // Typed-array views need aligned offsets; a pooled Buffer may start anywhere, so copy it once if so.
  const bytes = buf.byteOffset % 8 === 0 ? buf : copyUnpooled(buf);
  for (const [name, entry] of Object.entries(table)) {
    const at = bytes.byteOffset + start + entry.offset;
    if (start + entry.offset + entry.bytes > bytes.byteLength)
      throw new IndexFileError(`${file} is truncated; rebuild it with \`toolenv search index\``);
    switch (entry.type) {
      case 'utf8':
        sections[name] = bytes.toString('utf8', start + entry.offset, start + entry.offset + entry.bytes);
        break;
      case 'f32':
        sections[name] = new Float32Array(bytes.buffer, at, entry.bytes / 4);
        break;
      case 'u32':
        sections[name] = new Uint32Array(bytes.buffer, at, entry.bytes / 4);
        break;
      case 'u16':
        sections[name] = new Uint16Array(bytes.buffer, at, entry.bytes / 2);
        break;
      case 'u8':
        sections[name] = new Uint8Array(bytes.buffer, at, entry.bytes);
        break;
    }
  }
  return { header, sections };
}

function copyUnpooled(buf: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(buf.byteLength);
  buf.copy(copy);
  return copy;
}

/** A section of the expected type, or an error naming the file. */
export function section<T extends Section>(
  file: IndexFile<unknown>,
  name: string,
  type: new (...args: never[]) => T,
): T;
export function section(file: IndexFile<unknown>, name: string, type: 'utf8'): string;
export function section(file: IndexFile<unknown>, name: string, type: unknown): Section {
  const value = file.sections[name];
  const ok = type === 'utf8' ? typeof value === 'string' : value instanceof (type as new () => object);
  if (value === undefined || !ok)
    throw new IndexFileError(`index file lacks section ${name}; rebuild it with \`toolenv search index\``);
  return value;
}
