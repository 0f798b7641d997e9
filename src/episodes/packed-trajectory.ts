import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import type { TrajectoryStep, TurnRecord } from '../wire/episodes.js';

/** Deflate's fastest level: a turn's pack costs tens of microseconds, and shrinks about eightfold all the same. */
const PACK_OPTIONS = { level: constants.Z_BEST_SPEED };

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
      const [packedSteps, turn] = JSON.parse(inflateRawSync(Buffer.from(pack, 'latin1')).toString()) as [
        TrajectoryStep[],
        TurnRecord | null,
      ];
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
