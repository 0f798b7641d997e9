import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import type { TrajectoryStep, TurnRecord } from '../wire/episodes.js';

/**
 * Text every pack is likely to repeat (the members of a step and a turn record, a rendered `<tool_response>`),
 * given to deflate as its preset dictionary: a pack of a turn of three calls is about 30% smaller with it. Packs never
 * leave the process, so the dictionary can change with the code.
 */
const DICTIONARY = Buffer.from(
  [
    '"not_run":[],"observation":"<tool_response>\\n{\\"id\\":\\"c1\\",\\"tool\\":\\"\\",\\"status\\":200,',
    '\\"body\\":{\\"id\\":\\"\\n</tool_response>{"turn":1,"text":"<think></think>\\n<tool_call>{\\"tool\\": ',
    '\\"\\", \\"arguments\\": {\\"id\\":\\"</tool_call>\\n<search_tool></search_tool>","well_formed":true,',
    '"controller":"need","searches":[],"calls":[{"id":"c1","tool":"","status":200,"ok":true}],"observations":[',
    '{"type":"tool_call","id":"c1","tool":"","status":200,"body":{"id":"","name":"","created_at":"","updated_at":"",',
    '"description":"","type":""},"latency_ms":0.1,"source":"cache"}]}[[{"step":1,',
    '"started_at":"2026-01-01T00:00:00.000Z","wall_ms":0.1,"actions":[{"type":"tool_call","id":"c1","tool":"",',
    '"arguments":{"id":""}}],',
  ].join(''),
);

/** Deflate's fastest level: a turn's pack costs tens of microseconds, and shrinks about eightfold all the same. */
const PACK_OPTIONS = { level: constants.Z_BEST_SPEED, dictionary: DICTIONARY };
const UNPACK_OPTIONS = { dictionary: DICTIONARY };

/**
 * An episode's finished steps and turns, kept as deflated JSON (issue #31: a live episode held about 48 KiB, most of
 * it these records as objects and two-byte strings). A text turn is packed with the step it ran: its observation
 * renders that step's results, so one deflate stream holds them about once. A step of an episode without turns is
 * packed on its own. Each pack is a one-byte string of the deflated bytes: on the heap at its size, with no Buffer
 * (nor the pool slab a small one would keep alive) to hold. Reading inflates and parses every pack, which only a
 * trajectory's readers do (its GET, rewards, export), never a step or a turn.
 */
export class PackedTrajectory {
  private readonly packs: string[] = [];
  /** Steps recorded since the last pack, as JSON: a text turn's step waits for the turn's record. */
  private loose: string[] = [];

  /** Keeps a finished step's JSON: packed now when `alone`, else with the next turn. */
  addStep(json: string, alone: boolean): void {
    if (alone) this.pack([json], 'null');
    else this.loose.push(json);
  }

  /** Packs a finished turn's record (JSON) with the steps recorded since the last pack. */
  addTurn(json: string): void {
    this.pack(this.loose, json);
    this.loose = [];
  }

  /** Every step and turn kept, in the order they were recorded. */
  read(): { steps: TrajectoryStep[]; turns: TurnRecord[] } {
    const steps: TrajectoryStep[] = [];
    const turns: TurnRecord[] = [];
    for (const pack of this.packs) {
      const [packedSteps, turn] = JSON.parse(
        inflateRawSync(Buffer.from(pack, 'latin1'), UNPACK_OPTIONS).toString(),
      ) as [TrajectoryStep[], TurnRecord | null];
      steps.push(...packedSteps);
      if (turn) turns.push(turn);
    }
    for (const json of this.loose) steps.push(JSON.parse(json) as TrajectoryStep);
    return { steps, turns };
  }

  private pack(steps: readonly string[], turn: string): void {
    this.packs.push(deflateRawSync(`[[${steps.join(',')}],${turn}]`, PACK_OPTIONS).toString('latin1'));
  }
}
