/** One worker's own exposition, as its `/metrics` gave it. */
export interface WorkerExposition {
  worker: number;
  text: string;
}

/** The samples of a family whose `# TYPE` line names it without their suffix (a histogram's, a summary's). */
const SAMPLE_SUFFIXES = ['_bucket', '_sum', '_count', '_created', '_total'];
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

interface Family {
  /** Its `# HELP` and `# TYPE` lines, first seen. */
  comments: Map<string, string>;
  samples: string[];
}

/**
 * One Prometheus text exposition from several workers' own: every sample keeps its value and gains a `worker` label.
 * Not summed: a sum goes backwards whenever a worker restarts or misses a scrape, which reads as a counter reset;
 * queries sum over `worker` themselves. Each family's comment lines come once, followed by all its samples, every
 * worker's in turn, as the format requires.
 */
export function labelByWorker(expositions: readonly WorkerExposition[]): string {
  const families = new Map<string, Family>();
  const family = (name: string) => {
    let found = families.get(name);
    if (!found) families.set(name, (found = { comments: new Map(), samples: [] }));
    return found;
  };
  for (const { worker, text } of expositions) {
    const label = `worker="${worker}"`;
    let current = '';
    for (const line of text.split('\n')) {
      if (line === '') continue;
      if (line.startsWith('#')) {
        const [, keyword, name] = line.split(' ');
        if ((keyword !== 'HELP' && keyword !== 'TYPE') || name === undefined) continue;
        current = name;
        const comments = family(name).comments;
        if (!comments.has(keyword)) comments.set(keyword, line);
        continue;
      }
      const name = METRIC_NAME.exec(line)?.[0];
      if (name === undefined) continue;
      const member =
        current !== '' && (name === current || SAMPLE_SUFFIXES.some((suffix) => name === current + suffix));
      family(member ? current : name).samples.push(withLabel(line, name.length, label));
    }
  }
  const lines: string[] = [];
  for (const { comments, samples } of families.values()) lines.push(...comments.values(), ...samples);
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** A sample line with one more label, first among its labels. */
function withLabel(line: string, nameEnd: number, label: string): string {
  if (line[nameEnd] !== '{') return `${line.slice(0, nameEnd)}{${label}}${line.slice(nameEnd)}`;
  const separator = line[nameEnd + 1] === '}' ? '' : ',';
  return `${line.slice(0, nameEnd + 1)}${label}${separator}${line.slice(nameEnd + 1)}`;
}
