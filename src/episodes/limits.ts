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
 * Bytes of observation bodies one trajectory keeps verbatim (JSON text). Past it, and for any single body over
 * MAX_STORED_BODY_BYTES, the trajectory keeps a stub (`truncated: true`); the step's own answer is always whole.
 * With the live cap this bounds trajectory memory at about maxEpisodes × this.
 */
export const EPISODE_BODY_BUDGET = 1024 * 1024;
export const MAX_STORED_BODY_BYTES = 64 * 1024;
/** Bytes of resource JSON one episode's world state remembers; creates and updates past it are not remembered. */
export const WORLD_BUDGET = 1024 * 1024;
/** Characters of a truncated body's JSON kept as its preview. */
export const TRUNCATED_PREVIEW_CHARS = 512;
/** Longest string accepted for ids, task ids and queries. */
export const MAX_TEXT = 10_000;
