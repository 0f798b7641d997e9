/** Series combined by their minimum rather than their sum: the cluster started when its first worker did. */
const MINIMUM = new Set(['process_start_time_seconds']);

interface Family {
  /** Its `# HELP` and `# TYPE` lines, first seen. */
  comments: Map<string, string>;
  samples: Map<string, number>;
}

/**
 * One Prometheus text exposition from several workers' expositions: counters, histogram buckets and gauges of
 * the same series are added (the cluster's requests, in-flight calls, resident memory), comment lines kept once,
 * and every family's lines stay together as the format requires.
 */
export function mergeExpositions(texts: readonly string[]): string {
  const families = new Map<string, Family>();
  const family = (name: string) => {
    let found = families.get(name);
    if (!found) families.set(name, (found = { comments: new Map(), samples: new Map() }));
    return found;
  };
  for (const text of texts) {
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
      const space = line.lastIndexOf(' ');
      const series = line.slice(0, space);
      const value = Number(line.slice(space + 1));
      const name = seriesName(series);
      // A histogram's _bucket, _sum and _count samples belong to the family its comments named.
      const samples = family(current !== '' && (name === current || name.startsWith(`${current}_`)) ? current : name).samples;
      const before = samples.get(series);
      samples.set(series, before === undefined ? value : MINIMUM.has(name) ? Math.min(before, value) : before + value);
    }
  }
  const lines: string[] = [];
  for (const { comments, samples } of families.values()) {
    lines.push(...comments.values());
    for (const [series, value] of samples) lines.push(`${series} ${value}`);
  }
  return `${lines.join('\n')}\n`;
}

function seriesName(series: string): string {
  const brace = series.indexOf('{');
  return brace < 0 ? series : series.slice(0, brace);
}
