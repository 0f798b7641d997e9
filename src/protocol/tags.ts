import { TAGS, type TagName } from './protocol.js';

export interface TagBlock {
  name: TagName;
  content: string;
  /** The block had its closing tag; an unclosed one runs to the next opening tag or to the end of the text. */
  closed: boolean;
}

interface TagToken {
  name: TagName;
  close: boolean;
  start: number;
  end: number;
}

const TOKEN = new RegExp(`<\\s*(/)?\\s*(${TAGS.join('|')})\\s*>`, 'gi');

/**
 * The protocol's tagged blocks, in order. Tag names are matched case-insensitively; text outside the blocks and
 * tags the protocol does not know (`<tool_response>` a model imagined) are ignored. A block whose closing tag is
 * missing ends where the next known opening tag begins, or at the end of the text (models often stop mid-tag).
 * Every tag is found in one pass and each block's end by index, so a degenerate generation (thousands of opening
 * tags) costs n log n, not n² — the server reads every rollout's text.
 */
export function extractBlocks(text: string): TagBlock[] {
  const tokens: TagToken[] = [...text.matchAll(TOKEN)].map((m) => ({
    name: m[2]!.toLowerCase() as TagName,
    close: m[1] !== undefined,
    start: m.index,
    end: m.index + m[0].length,
  }));
  // For each token, the index of the next opening tag after it; for each name, its closing tags in order.
  const nextOpen = new Array<number>(tokens.length + 1).fill(-1);
  for (let i = tokens.length - 1; i >= 0; i--)
    nextOpen[i] = tokens[i + 1] && !tokens[i + 1]!.close ? i + 1 : nextOpen[i + 1]!;
  const closes = new Map<TagName, number[]>();
  tokens.forEach((token, i) => {
    if (!token.close) return;
    const list = closes.get(token.name);
    if (list) list.push(i);
    else closes.set(token.name, [i]);
  });
  const blocks: TagBlock[] = [];
  let cursor = 0;
  tokens.forEach((open, i) => {
    if (open.close || open.start < cursor) return;
    const close = firstAfter(closes.get(open.name), i);
    const next = nextOpen[i]! < 0 ? undefined : tokens[nextOpen[i]!]!;
    // A <think> may mention other tags in prose; it ends only at its own closing tag. Other blocks hold JSON or an
    // answer: a known opening tag before their closing one means the closing tag was forgotten.
    const found = close === undefined ? undefined : tokens[close]!;
    if (found && (open.name === 'think' || next === undefined || found.start <= next.start)) {
      blocks.push({ name: open.name, content: text.slice(open.end, found.start), closed: true });
      cursor = found.end;
    } else {
      const end = next ? next.start : text.length;
      blocks.push({ name: open.name, content: text.slice(open.end, end), closed: false });
      cursor = end;
    }
  });
  return blocks;
}

/** The first index in the sorted list greater than `after`, by binary search. */
function firstAfter(indices: readonly number[] | undefined, after: number): number | undefined {
  if (!indices) return undefined;
  let lo = 0;
  let hi = indices.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (indices[mid]! > after) hi = mid;
    else lo = mid + 1;
  }
  return indices[lo];
}
