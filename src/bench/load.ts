import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  connections: number;
  durationSeconds: number;
}

export interface LoadResult {
  rps: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

/** Drives one HTTP endpoint with autocannon and reports mean requests per second and latency. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    body: options.body,
    headers: options.headers,
    connections: options.connections,
    duration: options.durationSeconds,
  });
  return {
    rps: Math.round(result.requests.average),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}
