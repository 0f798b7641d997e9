/** Prometheus text (what GET /metrics answers) read into samples: name, labels, value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const match = LINE.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key!] = value!.replace(/\\(.)/g, '$1');
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of a metric's samples, grouped by one label (or all together under ''). */
export function sumBy(samples: readonly Sample[], name: string, label?: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) {
    if (s.name !== name) continue;
    const key = label === undefined ? '' : (s.labels[label] ?? '');
    out.set(key, (out.get(key) ?? 0) + s.value);
  }
  return out;
}

export function total(samples: readonly Sample[], name: string): number {
  return sumBy(samples, name).get('') ?? 0;
}
