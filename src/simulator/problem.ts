import { STATUS_CODES } from 'node:http';

/** RFC 7807 problem details: the body of every error ToolEnv answers, simulated or its own. */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * Every problem type is a URI under this base; the last segment is the title as a slug ("Unknown tool" → unknown-tool).
 */
export const PROBLEM_TYPE_BASE = 'https://toolenv.dev/problems/';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  [member: string]: unknown;
}

/** The problem type URI of a title; titles are fixed per kind of problem, so the URI identifies the kind. */
export function problemType(title: string): string {
  return (
    PROBLEM_TYPE_BASE +
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
  );
}

/**
 * A problem body. `title` defaults to the HTTP reason phrase of `status`; `extra` adds members (errors, suggestions…)
 * but cannot override the standard ones.
 */
export function problem<S extends number>(
  status: S,
  title?: string,
  detail?: string,
  extra: Record<string, unknown> = {},
): Problem & { status: S } {
  const heading = title ?? STATUS_CODES[status] ?? `HTTP ${status}`;
  const body: Problem & { status: S } = { type: problemType(heading), title: heading, status };
  if (detail !== undefined) body.detail = detail;
  for (const [member, value] of Object.entries(extra))
    if (!(member in body) && !STANDARD.has(member)) body[member] = value;
  return body;
}

const STANDARD = new Set(['type', 'title', 'status', 'detail']);
