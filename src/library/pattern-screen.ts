import type ret from 'ret';
import type { Token } from 'ret';
import { lazyRequire } from '../lazy-require.js';

// ret is CommonJS whose module.exports is the tokenizer (its token types a member of it); its types describe it as
// the `default` of an ES module. Loaded with the first pattern screened: a server start need not read its 23 files.
const loadRet = lazyRequire<typeof ret.default & { types: typeof ret.types }>('ret');
type Types = typeof ret.types;

/** A repetition bounded by at most this many is a bounded choice; a larger bound counts as unbounded (`{1,1024}`). */
const SMALL_REPEAT = 16;
/** Most combinations of bounded choices (alternatives, `?`, `{1,3}`) a match attempt may backtrack through. */
const MAX_BRANCHING = 64;

/**
 * What a part of a pattern costs a backtracking engine: its bounded choices multiplied, and its unbounded repetitions.
 */
interface Cost {
  branching: number;
  unbounded: number;
}

/**
 * Whether a backtracking engine runs a pattern in time linear in its input, by construction: anchored at the
 * start (one match attempt, not one per position), at most one unbounded repetition and that of a single character
 * (its n + 1 lengths each followed by a bounded rest), a bounded number of other choices, and no look-arounds or
 * back-references. safe-regex2's star height catches only the exponential cases; `^[a-z]*[a-z-.]+[a-z]*$` passes it
 * and is cubic (seconds on 3,000 characters). Patterns this refuses run on the linear-time engine.
 */
export function linearNatively(source: string): boolean {
  const tokenize = loadRet();
  const { types } = tokenize;
  let root: ReturnType<typeof tokenize>;
  try {
    root = tokenize(source);
  } catch {
    return false;
  }
  if (root.type !== types.ROOT || root.options || !root.stack) return false;
  const first = root.stack[0];
  if (first?.type !== types.POSITION || first.value !== '^') return false;
  const cost = sequenceCost(root.stack, types);
  return cost !== undefined && cost.unbounded <= 1 && cost.branching <= MAX_BRANCHING;
}

function sequenceCost(tokens: readonly Token[], types: Types): Cost | undefined {
  let branching = 1;
  let unbounded = 0;
  for (const token of tokens) {
    const cost = tokenCost(token, types);
    if (cost === undefined) return undefined;
    branching *= cost.branching;
    unbounded += cost.unbounded;
  }
  return { branching, unbounded };
}

function tokenCost(token: Token, types: Types): Cost | undefined {
  switch (token.type) {
    case types.CHAR:
    case types.SET:
    case types.POSITION:
      return { branching: 1, unbounded: 0 };
    case types.REFERENCE:
      return undefined;
    case types.GROUP: {
      if (token.followedBy || token.notFollowedBy || token.lookBehind) return undefined;
      if (!token.options) return sequenceCost(token.stack ?? [], types);
      // Alternatives are tried one after another: their work adds up.
      let branching = 0;
      let unbounded = 0;
      for (const option of token.options) {
        const cost = sequenceCost(option, types);
        if (cost === undefined) return undefined;
        branching += cost.branching;
        unbounded = Math.max(unbounded, cost.unbounded);
      }
      return { branching, unbounded };
    }
    case types.REPETITION: {
      const { min, max, value } = token;
      const single = value.type === types.CHAR || value.type === types.SET;
      if (max > SMALL_REPEAT) {
        if (!single) return undefined;
        return { branching: 1, unbounded: min === max ? 0 : 1 };
      }
      const inner = tokenCost(value, types);
      if (inner === undefined) return undefined;
      // An unbounded repetition repeated (`(\w+\.){3}`) is a polynomial of that degree.
      if (inner.unbounded > 0 && max > 1) return undefined;
      return { branching: (max - min + 1) * inner.branching ** max, unbounded: inner.unbounded };
    }
  }
}
