import { httpProblem } from '../http/problem-response.js';
import { requestErrors, type RequestShape } from '../wire/request-errors.js';

/**
 * `body` as its schema in schemas/ allows it, or a 400 problem titled `title` whose detail names the first wrong
 * members and whose `errors` lists them all (JSON pointers and messages, as the episode routes list theirs).
 */
export function checkedBody<T>(shape: RequestShape, body: unknown, title: string): T {
  const errors = requestErrors(shape, body);
  if (errors.length === 0) return body as T;
  const listed = errors
    .slice(0, 3)
    .map((e) => `${e.path || '(body)'} ${e.message}`)
    .join('; ');
  const more = errors.length > 3 ? ` (and ${errors.length - 3} more)` : '';
  throw httpProblem(400, `invalid request body: ${listed}${more}`, { title, extra: { errors } });
}
