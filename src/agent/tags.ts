import { TAGS, type TagName } from './protocol.js';

export interface TagBlock {
  name: TagName;
  content: string;
  /** The block had its closing tag; an unclosed one runs to the next opening tag or to the end of the text. */
  closed: boolean;
}

const OPEN = new RegExp(`<\\s*(${TAGS.join('|')})\\s*>`, 'gi');

/**
 * The protocol's tagged blocks, in order. Tag names are matched case-insensitively; text outside the blocks and
 * tags the protocol does not know (`<tool_response>` a model imagined) are ignored. A block whose closing tag is
 * missing ends where the next known opening tag begins, or at the end of the text (models often stop mid-tag).
 */
export function extractBlocks(text: string): TagBlock[] {
  const opens = [...text.matchAll(OPEN)].map((m) => ({ name: m[1]!.toLowerCase() as TagName, start: m.index, end: m.index + m[0].length }));
  const blocks: TagBlock[] = [];
  let cursor = 0;
  for (let i = 0; i < opens.length; i++) {
    const open = opens[i]!;
    if (open.start < cursor) continue;
    const close = new RegExp(`<\\s*/\\s*${open.name}\\s*>`, 'i');
    const rest = text.slice(open.end);
    const found = close.exec(rest);
    // A <think> may mention other tags in prose; it ends only at its own closing tag. Other blocks hold JSON or an
    // answer: a known opening tag before their closing one means the closing tag was forgotten.
    const nextOpen = opens.slice(i + 1).find((o) => o.start >= open.end);
    const closesFirst = found !== null && (open.name === 'think' || nextOpen === undefined || open.end + found.index <= nextOpen.start);
    if (closesFirst) {
      blocks.push({ name: open.name, content: rest.slice(0, found.index), closed: true });
      cursor = open.end + found.index + found[0].length;
    } else {
      const end = nextOpen ? nextOpen.start : text.length;
      blocks.push({ name: open.name, content: text.slice(open.end, end), closed: false });
      cursor = end;
    }
  }
  return blocks;
}
