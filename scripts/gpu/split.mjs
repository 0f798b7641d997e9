#!/usr/bin/env node
// The task files of the GPU run, split BY API: every API goes to one split by a seeded hash, so no held-out (or dev)
// task's API appears in training, and a held-out score measures the protocol learned on APIs never seen.
//
//   node scripts/gpu/split.mjs --pool POOL.jsonl --tools LIST.jsonl --seed S --out DIR \
//     [--sft 400] [--ei 128] [--dev 32] [--held-out 64] [--per-api 2] [--train-per-api 8]
//
// POOL: `toolenv tasks synth` output; LIST: `toolenv library list --json` of the library it was drawn from (each tool's
// origin.api_id). An API is held out when its hash falls in the first 20% of the range, dev in the next 10%, training
// otherwise. Held-out and dev take at most --per-api tasks of an API (so an API's tasks, which succeed or fail
// together, weigh little in the intervals), training at most --train-per-api. Training tasks go first to the SFT
// demonstrations (--sft), the next ones to expert iteration (--ei): a set the policy has not been fine-tuned on. Writes
// sft.jsonl, ei.jsonl, dev.jsonl, heldout.jsonl, apis.txt (every API a task uses: the library subset) and split.json.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) {
    if (fallback === undefined) throw new Error(`split.mjs: ${name} is required`);
    return fallback;
  }
  return args[i + 1];
};
const int = (name, fallback) => Number.parseInt(flag(name, String(fallback)), 10);
const pool = flag('--pool');
const list = flag('--tools');
const out = flag('--out');
const seed = int('--seed', 1);
const want = { sft: int('--sft', 400), ei: int('--ei', 128), dev: int('--dev', 32), heldout: int('--held-out', 64) };
const perApi = int('--per-api', 2);
const trainPerApi = int('--train-per-api', 8);

const lines = (file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
const apiOf = new Map();
for (const line of lines(list)) {
  const tool = JSON.parse(line);
  if (tool.id !== undefined) apiOf.set(tool.id, tool.origin?.api_id ?? null);
}

/** The split an API belongs to, from a seeded hash of its id: 20% held out, 10% dev, the rest training. */
export function splitOf(apiId, seed) {
  const u = createHash('sha256').update(`${seed}\u0000${apiId}`).digest().readUInt32BE(0) / 2 ** 32;
  return u < 0.2 ? 'heldout' : u < 0.3 ? 'dev' : 'train';
}

const chosen = { train: [], dev: [], heldout: [] };
const perApiCount = { train: new Map(), dev: new Map(), heldout: new Map() };
const skipped = { mixed: 0, unknown_tool: 0, per_api: 0 };
const cap = { train: want.sft + want.ei, dev: want.dev, heldout: want.heldout };
for (const line of lines(pool)) {
  const task = JSON.parse(line);
  const apis = [...new Set((task.reference_tools ?? []).map((id) => apiOf.get(id)))];
  if (apis.length === 0 || apis.some((a) => a === undefined || a === null)) {
    skipped.unknown_tool++;
    continue;
  }
  const splits = new Set(apis.map((a) => splitOf(a, seed)));
  if (splits.size > 1) {
    skipped.mixed++;
    continue;
  }
  const split = [...splits][0];
  if (chosen[split].length >= cap[split]) continue;
  const key = apis.join(',');
  const n = perApiCount[split].get(key) ?? 0;
  if (n >= (split === 'train' ? trainPerApi : perApi)) {
    skipped.per_api++;
    continue;
  }
  perApiCount[split].set(key, n + 1);
  chosen[split].push({ task, apis });
}
const files = {
  sft: chosen.train.slice(0, want.sft),
  ei: chosen.train.slice(want.sft, want.sft + want.ei),
  dev: chosen.dev,
  heldout: chosen.heldout,
};
for (const [name, rows] of Object.entries(files)) {
  if (rows.length < want[name])
    throw new Error(
      `split.mjs: the pool gave ${rows.length} ${name} tasks of the ${want[name]} wanted: synthesize a larger pool`,
    );
}
mkdirSync(out, { recursive: true });
for (const [name, rows] of Object.entries(files)) {
  // The task line as `tasks synth` wrote it, its API and split in meta (the runner reports held-out results by API).
  const line = ({ task, apis }) =>
    JSON.stringify({ ...task, meta: { ...task.meta, api: apis.join(','), split: name } });
  writeFileSync(join(out, `${name}.jsonl`), `${rows.map(line).join('\n')}\n`);
}
const apis = [...new Set(Object.values(files).flatMap((rows) => rows.flatMap((r) => r.apis)))].sort();
writeFileSync(join(out, 'apis.txt'), `${apis.join('\n')}\n`);
const apisOf = (rows) => new Set(rows.flatMap((r) => r.apis));
const train = apisOf([...files.sft, ...files.ei]);
for (const name of ['dev', 'heldout']) {
  for (const api of apisOf(files[name]))
    if (train.has(api)) throw new Error(`split.mjs: ${api} is in training and ${name}`);
}
const summary = {
  seed,
  tasks: Object.fromEntries(Object.entries(files).map(([k, v]) => [k, v.length])),
  apis: { train: train.size, dev: apisOf(files.dev).size, heldout: apisOf(files.heldout).size, library: apis.length },
  skipped,
};
writeFileSync(join(out, 'split.json'), `${JSON.stringify(summary, null, 2)}\n`);
console.log(JSON.stringify(summary));
