import { PerformanceObserver } from 'node:perf_hooks';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';

/**
 * Upper bounds (seconds) of the request-duration histogram: a simulated call takes from microseconds (cache) to seconds
 * (injected timeouts).
 */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** One route's duration histogram, and its request counters by method and status. */
interface RouteStats {
  counts: number[];
  sum: number;
  count: number;
  requests: Map<string, Map<number, Series>>;
}

interface Series {
  method: string;
  route: string;
  status: number;
  count: number;
}

/**
 * HTTP and process counters of this server, in Prometheus text format. Routes are labelled by their pattern
 * (`/v1/tools/:id`, `/apis/*`), never by the raw path, so the number of series stays bounded. Counters are found
 * through maps keyed by the route, method and status as they come, never by a key built per request.
 */
export class HttpMetrics {
  /** Every request counter, in the order they first appeared. */
  private readonly series: Series[] = [];
  private readonly routes = new Map<string, RouteStats>();
  private inFlight = 0;
  /** REST answers whose error status the operation does not declare, by status. */
  private readonly undeclared = new Map<number, number>();

  constructor() {
    watchGc();
  }

  middleware(): MiddlewareHandler {
    return async (c, next) => {
      const started = this.begin();
      try {
        await next();
      } finally {
        const route = routePath(c);
        this.end(c.req.method, route === '*' || route === '' ? 'unmatched' : route, c.res.status, started);
      }
    };
  }

  /** A request is being answered: counted in flight until `end`. Returns its start time. */
  begin(): number {
    this.inFlight++;
    return performance.now();
  }

  /** A REST answer carried an error status its operation does not declare. */
  undeclaredStatus(status: number): void {
    this.undeclared.set(status, (this.undeclared.get(status) ?? 0) + 1);
  }

  /** A request begun at `started` was answered. */
  end(method: string, route: string, status: number, started: number): void {
    this.inFlight--;
    this.record(method, route, status, (performance.now() - started) / 1000);
  }

  private record(method: string, route: string, status: number, seconds: number): void {
    let stats = this.routes.get(route);
    if (!stats)
      this.routes.set(route, (stats = { counts: BUCKETS.map(() => 0), sum: 0, count: 0, requests: new Map() }));
    const label = METHODS.has(method) ? method : 'OTHER';
    let byStatus = stats.requests.get(label);
    if (!byStatus) stats.requests.set(label, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      byStatus.set(status, (series = { method: label, route, status, count: 0 }));
      this.series.push(series);
    }
    series.count++;
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) stats.counts[i]!++;
    stats.sum += seconds;
    stats.count++;
  }

  toPrometheus(): string {
    const lines: string[] = [];
    lines.push('# HELP toolenv_http_requests_total HTTP requests answered, by method, route pattern and status.');
    lines.push('# TYPE toolenv_http_requests_total counter');
    for (const { method, route, status, count } of this.series) {
      lines.push(
        `toolenv_http_requests_total{method="${method}",route="${escapeLabel(route)}",status="${status}"} ${count}`,
      );
    }
    lines.push('# HELP toolenv_http_request_duration_seconds Time from request to response headers, by route pattern.');
    lines.push('# TYPE toolenv_http_request_duration_seconds histogram');
    for (const [route, histogram] of this.routes) {
      const label = `route="${escapeLabel(route)}"`;
      BUCKETS.forEach((le, i) =>
        lines.push(`toolenv_http_request_duration_seconds_bucket{${label},le="${le}"} ${histogram.counts[i]}`),
      );
      lines.push(`toolenv_http_request_duration_seconds_bucket{${label},le="+Inf"} ${histogram.count}`);
      lines.push(`toolenv_http_request_duration_seconds_sum{${label}} ${histogram.sum}`);
      lines.push(`toolenv_http_request_duration_seconds_count{${label}} ${histogram.count}`);
    }
    lines.push(
      '# HELP toolenv_rest_undeclared_status_total REST surface errors answered with a status their operation does ' +
        'not declare (x-toolenv-undeclared-status), by status.',
    );
    lines.push('# TYPE toolenv_rest_undeclared_status_total counter');
    for (const [status, n] of [...this.undeclared].sort(([a], [b]) => a - b))
      lines.push(`toolenv_rest_undeclared_status_total{status="${status}"} ${n}`);
    lines.push('# HELP toolenv_http_requests_in_flight Requests being answered now.');
    lines.push('# TYPE toolenv_http_requests_in_flight gauge');
    lines.push(`toolenv_http_requests_in_flight ${this.inFlight}`);
    return `${lines.join('\n')}\n${processMetrics()}`;
  }
}

/** Garbage-collection pauses since the first HttpMetrics was made, seconds. */
let gcSeconds = 0;
let gcObserver: PerformanceObserver | undefined;

function watchGc(): void {
  if (gcObserver) return;
  gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcSeconds += entry.duration / 1000;
  });
  gcObserver.observe({ entryTypes: ['gc'] });
}

function processMetrics(): string {
  const cpu = process.cpuUsage();
  const memory = process.memoryUsage();
  return [
    '# HELP process_cpu_seconds_total User and system CPU time spent, in seconds.',
    '# TYPE process_cpu_seconds_total counter',
    `process_cpu_seconds_total ${(cpu.user + cpu.system) / 1e6}`,
    '# HELP process_resident_memory_bytes Resident memory size in bytes.',
    '# TYPE process_resident_memory_bytes gauge',
    `process_resident_memory_bytes ${memory.rss}`,
    '# HELP process_start_time_seconds Start time of the process since the Unix epoch, in seconds.',
    '# TYPE process_start_time_seconds gauge',
    `process_start_time_seconds ${Math.round((Date.now() - process.uptime() * 1000) / 1000)}`,
    '# HELP nodejs_heap_used_bytes V8 heap in use, in bytes.',
    '# TYPE nodejs_heap_used_bytes gauge',
    `nodejs_heap_used_bytes ${memory.heapUsed}`,
    '# HELP nodejs_gc_seconds_total Time spent in garbage-collection pauses, in seconds.',
    '# TYPE nodejs_gc_seconds_total counter',
    `nodejs_gc_seconds_total ${gcSeconds}`,
    '',
  ].join('\n');
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
