/**
 * The episode API's limits. Those a request can meet are stated once, in schemas/ (where the validators and the served
 * document read them), and read from there; the rest are the server's own budgets.
 */
import { schemaNumber } from '../wire/schemas.js';

const trajectory = (pointer: string) => schemaNumber('trajectory', `/$defs/${pointer}`);
const config = (pointer: string) => trajectory(`EpisodeConfigFields/properties/${pointer}`);

/** Steps an episode runs when its config names no max_steps. */
export const DEFAULT_MAX_STEPS = config('max_steps/default');
/** The most steps one episode may ask for: with MAX_ACTIONS it bounds what one trajectory holds. */
export const MAX_STEPS = config('max_steps/maximum');
/** Actions in one step: a ParaAct layer is a handful of calls or capability slots. */
export const MAX_ACTIONS = trajectory('StepRequest/properties/actions/maxItems');
/** Default and largest k of a search_tool action (the paper retrieves the top 3). */
export const DEFAULT_SEARCH_K = trajectory('SearchAction/properties/k/default');
export const MAX_SEARCH_K = trajectory('SearchAction/properties/k/maximum');
/** The most tool ids an episode may be restricted to. */
export const MAX_EPISODE_TOOLS = config('tools/maxItems');
/**
 * Heap a live episode is allotted when the live cap is sized from the episodes' memory budget (`--episode-memory`):
 * one after a search turn and 8 turns of three calls holds about 17 KiB (docs/benchmarks.md), one less far along
 * less. The default 1 GiB budget so caps live episodes at 65,536.
 */
export const LIVE_EPISODE_BYTES = 16 * 1024;
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
export const MAX_TEXT = trajectory('EpisodeTask/properties/id/maxLength');

/** The most text turns one episode may ask for (as MAX_STEPS bounds its steps). */
export const MAX_TURNS = config('max_turns/maximum');
/**
 * Characters of one assistant message a text turn takes: room for a long plan, bounded so a runaway generation is
 * refused.
 */
export const MAX_TURN_TEXT = trajectory('TurnRequest/properties/text/maxLength');
/** The smallest observation budget: room for the tags, the status lines and a few characters of each result. */
export const MIN_OBSERVATION_CHARS = config('max_observation_chars/minimum');
/** The largest per-turn call cap an episode may ask for. */
export const MAX_CALLS_PER_TURN = config('max_calls_per_turn/maximum');
/** The most episodes one group may hold (the paper's N is 8). */
export const MAX_GROUP_SIZE = schemaNumber('rewards', '/$defs/GroupRequest/allOf/1/properties/n/maximum');
/**
 * Characters of turn texts and observations one episode's record keeps whole (past it, previews): 15 turns of long
 * plans fit many times over.
 */
export const TURN_TEXT_BUDGET = 4 * 1024 * 1024;
/**
 * The largest reward coefficient an episode may set: past any sensible weight, short of overflowing a reward to
 * Infinity.
 */
export const MAX_COEFFICIENT = trajectory('RewardCoefficientOverrides/properties/w1/maximum');
/** The largest |reward| `POST /v1/advantages` takes, for the same reason. */
export const MAX_REWARD_MAGNITUDE = schemaNumber('rewards', '/$defs/ComponentRewards/properties/r_step/maximum');
