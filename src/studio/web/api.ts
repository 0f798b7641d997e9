/**
 * The studio's one way to the server: same-origin fetches with the API key the user gave the page. The key lives
 * in sessionStorage (this tab, until it closes), never in a URL or in the page the server sends.
 */

const KEY_ITEM = 'toolenv-studio-key';

export function apiKey(): string | null {
  return sessionStorage.getItem(KEY_ITEM);
}

export function setApiKey(key: string): void {
  if (key === '') sessionStorage.removeItem(KEY_ITEM);
  else sessionStorage.setItem(KEY_ITEM, key);
}

/** A problem+json answer (or any non-2xx), with the server's detail as the message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Record<string, unknown> | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** Fired on a 401, so the page can ask for the key. */
export const AUTH_EVENT = 'toolenv:auth';

/** The raw answer, for callers that read its headers (try it). */
export async function request(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const key = apiKey();
  if (key) headers.set('authorization', `Bearer ${key}`);
  if (init.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
  const response = await fetch(path, { ...init, headers });
  if (response.status === 401)
    window.dispatchEvent(new CustomEvent(AUTH_EVENT, { detail: key ? 'rejected' : 'missing' }));
  return response;
}

export async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await request(path, init);
  const text = await response.text();
  if (!response.ok) {
    let problem: Record<string, unknown> | undefined;
    try {
      problem = JSON.parse(text) as Record<string, unknown>;
    } catch {
      problem = undefined;
    }
    throw new ApiError(
      response.status,
      problem,
      `${response.status}: ${String(problem?.detail ?? (text || response.statusText))}`,
    );
  }
  return JSON.parse(text) as T;
}

export function postJson<T>(path: string, body: unknown): Promise<T> {
  return api<T>(path, { method: 'POST', body: JSON.stringify(body) });
}
