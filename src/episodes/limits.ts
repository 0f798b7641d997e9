/** Steps an episode runs when its config names no max_steps. */
export const DEFAULT_MAX_STEPS = 50;
/** The most steps one episode may ask for: with MAX_ACTIONS it bounds what one trajectory holds. */
export const MAX_STEPS = 1000;
/** Actions in one step: a ParaAct layer is a handful of calls or capability slots. */
export const MAX_ACTIONS = 64;
/** Default and largest k of a search_tool action (the paper retrieves the top 3). */
export const DEFAULT_SEARCH_K = 3;
export const MAX_SEARCH_K = 100;
/** The most tool ids an episode may be restricted to. */
export const MAX_EPISODE_TOOLS = 10_000;
/** Live episodes kept at once; creating one more is refused (429). */
export const DEFAULT_MAX_EPISODES = 10_000;
/** An episode untouched this long is dropped. */
export const DEFAULT_EPISODE_TTL_MS = 30 * 60 * 1000;
/**
 * Bytes of bulky JSON one trajectory keeps: observation bodies, call arguments and search results, previews
 * included. Past it, and for any single one over MAX_STORED_BODY_BYTES, the trajectory keeps a preview of at most
 * TRUNCATED_PREVIEW_CHARS (none once the budget is spent) and `truncated: <full size in bytes>`; the step's own
 * answer is always whole.
 */
export const EPISODE_BODY_BUDGET = 1024 * 1024;
export const MAX_STORED_BODY_BYTES = 64 * 1024;
/**
 * Bytes of JSON all live episodes of a server may hold together (trajectories and world states); past it creating
 * one more is refused (429). Per-episode budgets bound how far the live ones grow after that.
 */
export const DEFAULT_MAX_EPISODE_BYTES = 1024 * 1024 * 1024;
/** Bytes of resource JSON one episode's world state remembers; creates and updates past it are not remembered. */
export const WORLD_BUDGET = 1024 * 1024;
/** Characters of a truncated body's JSON kept as its preview. */
export const TRUNCATED_PREVIEW_CHARS = 512;
/** Longest string accepted for ids, task ids and queries. */
export const MAX_TEXT = 10_000;

/** The most text turns one episode may ask for (as MAX_STEPS bounds its steps). */
export const MAX_TURNS = 1000;
/** Characters of one assistant message a text turn takes: room for a long plan, bounded so a runaway generation is refused. */
export const MAX_TURN_TEXT = 200_000;
/** The smallest observation budget: room for the tags, the status lines and a few characters of each result. */
export const MIN_OBSERVATION_CHARS = 256;
/** The largest per-turn call cap an episode may ask for. */
export const MAX_CALLS_PER_TURN = 64;
/** The most episodes one group may hold (the paper's N is 8). */
export const MAX_GROUP_SIZE = 256;
/** Characters of turn texts and observations one episode's record keeps whole (past it, previews): 15 turns of long plans fit many times over. */
export const TURN_TEXT_BUDGET = 4 * 1024 * 1024;
/** The largest reward coefficient an episode may set: past any sensible weight, short of overflowing a reward to Infinity. */
export const MAX_COEFFICIENT = 1000;
/** The largest |reward| `POST /v1/advantages` takes, for the same reason. */
export const MAX_REWARD_MAGNITUDE = 1_000_000;
