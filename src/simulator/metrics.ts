import type { InjectedErrorKind, ResponseSource } from './types.js';
import { ERROR_KINDS } from './inject.js';

/** Upper bounds (seconds) of the call-latency histogram: a cache hit is tens of microseconds, an LLM answer seconds. */
export const LATENCY_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

/**
 * The simulator's counters, rendered in the Prometheus text format for `/metrics`. Plain numbers updated in place:
 * recording a call costs two map lookups and a bucket search.
 */
export class SimulatorMetrics {
  /** Calls by `source` and `status`, keyed `source status`. */
  readonly calls = new Map<string, number>();
  readonly latency = new Map<ResponseSource, Histogram>();
  cacheHits = 0;
  cacheMisses = 0;
  cacheWrites = 0;
  cacheWriteErrors = 0;
  /** Answers not written back because their entry was over the cache's size limit. */
  cacheTooLarge = 0;
  /** Answers not written back because the cache had reached its size bound (--cache-max-size). */
  cacheFull = 0;
  /** Misses another process sharing the cache answered while this one waited for it. */
  cacheShared = 0;
  /** Lookups the cache's database failed (the call was answered as a miss). */
  cacheReadErrors = 0;
  /** Responders that threw; the next responder in the list was asked instead. */
  responderErrors = 0;
  /** Real answers stored by `--upstream record`. */
  upstreamRecorded = 0;
  /** Forwarded calls the real API did not answer (unreachable, timed out) or that had no base URL. */
  upstreamFailures = 0;
  /** `--upstream replay` calls with no recording (answered 501). */
  replayMisses = 0;
  readonly injected: Record<InjectedErrorKind, number> = { rate_limit: 0, network: 0, timeout: 0, auth: 0 };
  schemaCompileFailures = 0;

  recordCall(source: ResponseSource, status: number, seconds: number): void {
    const key = `${source} ${status}`;
    this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
    let histogram = this.latency.get(source);
    if (!histogram) this.latency.set(source, (histogram = { counts: LATENCY_BUCKETS.map(() => 0), sum: 0, count: 0 }));
    const bucket = LATENCY_BUCKETS.findIndex((upper) => seconds <= upper);
    if (bucket >= 0) histogram.counts[bucket]!++;
    histogram.sum += seconds;
    histogram.count++;
  }

  totalCalls(): number {
    let total = 0;
    for (const n of this.calls.values()) total += n;
    return total;
  }

  /** The Prometheus text exposition (version 0.0.4) of every counter, metric names prefixed `toolenv_`. */
  toPrometheus(): string {
    const lines: string[] = [];
    const family = (name: string, type: string, help: string) =>
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);

    family('toolenv_calls_total', 'counter', 'Simulated tool calls by response source and HTTP status.');
    for (const [key, n] of [...this.calls].sort()) {
      const [source, status] = key.split(' ');
      lines.push(`toolenv_calls_total{source="${source}",status="${status}"} ${n}`);
    }

    family('toolenv_call_duration_seconds', 'histogram', 'Time from call to answer, by response source.');
    for (const [source, histogram] of [...this.latency].sort(([a], [b]) => (a < b ? -1 : 1))) {
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((upper, i) => {
        cumulative += histogram.counts[i]!;
        lines.push(`toolenv_call_duration_seconds_bucket{source="${source}",le="${upper}"} ${cumulative}`);
      });
      lines.push(`toolenv_call_duration_seconds_bucket{source="${source}",le="+Inf"} ${histogram.count}`);
      lines.push(`toolenv_call_duration_seconds_sum{source="${source}"} ${histogram.sum}`);
      lines.push(`toolenv_call_duration_seconds_count{source="${source}"} ${histogram.count}`);
    }

    const counter = (name: string, help: string, value: number) => {
      family(name, 'counter', help);
      lines.push(`${name} ${value}`);
    };
    counter('toolenv_cache_hits_total', 'Calls answered from the response cache.', this.cacheHits);
    counter('toolenv_cache_misses_total', 'Calls the response cache had no answer for.', this.cacheMisses);
    counter('toolenv_cache_writes_total', 'Answers written back to the response cache.', this.cacheWrites);
    counter(
      'toolenv_cache_write_errors_total',
      'Write-backs that failed (the call was still answered).',
      this.cacheWriteErrors,
    );
    counter(
      'toolenv_cache_too_large_total',
      'Answers not cached because their entry (arguments + body) was over --cache-max-entry.',
      this.cacheTooLarge,
    );
    counter(
      'toolenv_cache_full_total',
      'Answers not cached because the cache had reached --cache-max-size.',
      this.cacheFull,
    );
    counter(
      'toolenv_cache_shared_total',
      'Misses answered by another process sharing the cache (it claimed the call first).',
      this.cacheShared,
    );
    counter(
      'toolenv_cache_read_errors_total',
      'Cache lookups the database failed (the call was answered as a miss).',
      this.cacheReadErrors,
    );
    counter(
      'toolenv_upstream_recorded_total',
      'Real answers stored in the cache by --upstream record.',
      this.upstreamRecorded,
    );
    counter(
      'toolenv_upstream_failures_total',
      'Forwarded calls the real API did not answer (unreachable, timed out, no base URL): answered 502, 504 or 501.',
      this.upstreamFailures,
    );
    counter(
      'toolenv_replay_misses_total',
      'Calls --upstream replay had no recording for (answered 501).',
      this.replayMisses,
    );
    counter(
      'toolenv_responder_errors_total',
      'Responders that threw (the next responder answered instead).',
      this.responderErrors,
    );

    family('toolenv_injected_errors_total', 'counter', 'Errors injected by the Rule layer, by kind.');
    for (const kind of ERROR_KINDS) lines.push(`toolenv_injected_errors_total{kind="${kind}"} ${this.injected[kind]}`);

    counter(
      'toolenv_schema_compile_failures_total',
      'Parameter schemas ajv could not compile (those tools check required parameters only).',
      this.schemaCompileFailures,
    );
    return `${lines.join('\n')}\n`;
  }

  /** The same numbers as one JSON-ready object. */
  toJSON(): Record<string, unknown> {
    return {
      calls: Object.fromEntries(this.calls),
      cache: {
        hits: this.cacheHits,
        misses: this.cacheMisses,
        writes: this.cacheWrites,
        write_errors: this.cacheWriteErrors,
      },
      responder_errors: this.responderErrors,
      upstream: { recorded: this.upstreamRecorded, failures: this.upstreamFailures, replay_misses: this.replayMisses },
      injected: { ...this.injected },
      schema_compile_failures: this.schemaCompileFailures,
      latency: Object.fromEntries(
        [...this.latency].map(([source, h]) => [source, { count: h.count, sum_seconds: h.sum }]),
      ),
    };
  }
}
