import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { LibraryStore } from '../library/store.js';
import type { Tool } from '../library/tool.js';
import { chatRow, type ArgumentsForm, type ExportedTrajectory } from '../chat/export.js';
import { readSavedRun } from './saved-run.js';

export interface ExportOptions {
  files: readonly string[];
  out: string;
  /** The library the trajectories' tools come from: search results are summarized from its records. */
  library: string;
  arguments: ArgumentsForm;
  onFile?: (file: string, outcome: { row: true } | { skipped: string }) => void;
}

export interface ExportSummary {
  files: number;
  rows: number;
  skipped: { file: string; why: string }[];
  out: string;
}

/**
 * `toolenv export`: saved runs (eval trajectories, `GET /v1/episodes/{id}` as JSON or JSON lines) as Hugging Face
 * chat rows, one JSON line each. Every file is read and checked before anything is written, so a bad one costs no
 * half-written output.
 */
export async function exportChatRows(options: ExportOptions): Promise<ExportSummary> {
  const trajectories = options.files.map((file) => [file, readSavedRun(file) as ExportedTrajectory] as const);
  const store = LibraryStore.open(options.library);
  const out = createWriteStream(options.out);
  const summary: ExportSummary = { files: options.files.length, rows: 0, skipped: [], out: options.out };
  try {
    for (const [file, trajectory] of trajectories) {
      const tools = new Map<string, Tool>();
      for (const turn of trajectory.turns) {
        for (const id of turn.searches.flatMap((s) => s.results)) {
          const tool = tools.has(id) ? undefined : store.get(id);
          if (tool) tools.set(id, tool);
        }
      }
      const result = chatRow(trajectory, tools, options.arguments);
      if ('row' in result) {
        out.write(`${JSON.stringify(result.row)}\n`);
        summary.rows++;
        options.onFile?.(file, { row: true });
      } else {
        summary.skipped.push({ file, why: result.skipped });
        options.onFile?.(file, result);
      }
    }
  } finally {
    out.end();
    await finished(out);
    store.close();
  }
  return summary;
}
