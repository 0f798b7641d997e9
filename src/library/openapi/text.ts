/** Tool names and descriptions from an operation's summary, description and operationId. */

/** Longest summary used as a tool name; a longer one is a sentence, which the description keeps. */
export const MAX_NAME_LENGTH = 80;
export const MAX_DESCRIPTION_LENGTH = 1000;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** Where a line of a description ends: a newline, `<br>` or a paragraph tag. */
const LINE_BREAK = /\r?\n|<br\s*\/?>|<\/?p(?:\s[^>]*)?>/i;

/**
 * A line that only says "no value", left by the generator of a document: `…points<br/>None` (a Python None
 * formatted into the text), `undefined`, `null`, `n/a`, `TODO`. It is not text a reader (or a model) should see.
 */
const PLACEHOLDER_LINE = /^\s*(?:None|null|NULL|undefined|n\/a|N\/A|TODO|TBD)\s*$/;

/**
 * One line of plain text: lines that are only a placeholder dropped, HTML tags, markdown images and link targets
 * removed, whitespace collapsed.
 */
export function plainText(value: unknown): string {
  if (typeof value !== 'string') return '';
  return value
    .split(LINE_BREAK)
    .filter((line) => !PLACEHOLDER_LINE.test(line))
    .join('\n')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/<\/?[A-Za-z][^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_, name: string) => ENTITIES[name]!)
    .replace(/\s+/g, ' ')
    .trim();
}

/** `listPets` → "List pets", `ApiManagement_CheckName` → "Api management check name"; acronyms keep their case. */
export function humanize(identifier: string): string {
  const words = identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s._\-/:]+/)
    .filter(Boolean)
    .map((word) => (/^[A-Z0-9]+$/.test(word) && word.length > 1 ? word : word.toLowerCase()));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The summary when it is short, else the operationId in words, else `GET /path`. */
export function toolName(summary: string, operationId: string | undefined, method: string, path: string): string {
  const short = summary.replace(/\.$/, '');
  if (short && short.length <= MAX_NAME_LENGTH) return short;
  if (operationId) {
    const words = humanize(operationId);
    if (words) return words.length <= MAX_NAME_LENGTH ? words : cut(words, MAX_NAME_LENGTH);
  }
  return `${method.toUpperCase()} ${path}`;
}

const normalize = (sentence: string) =>
  sentence
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/** Summary and description as one text, without repeating the summary when the description already says it. */
export function mergeDescription(summary: string, description: string): string {
  if (!summary) return cut(description, MAX_DESCRIPTION_LENGTH);
  if (!description) return cut(summary, MAX_DESCRIPTION_LENGTH);
  const head = normalize(summary);
  const body = normalize(description);
  if (body.startsWith(head)) return cut(description, MAX_DESCRIPTION_LENGTH);
  if (head.startsWith(body)) return cut(summary, MAX_DESCRIPTION_LENGTH);
  const rest = sentences(description).filter((sentence) => normalize(sentence) !== head);
  const lead = /[.!?:]$/.test(summary) ? summary : `${summary}.`;
  return cut([lead, ...rest].join(' '), MAX_DESCRIPTION_LENGTH);
}

function sentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+(?=[A-Z0-9"'(])/).filter(Boolean);
}

/** Shortens to at most `max` characters at a word boundary, marking the cut with an ellipsis. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max - 1);
  const space = head.lastIndexOf(' ');
  return `${(space > max * 0.6 ? head.slice(0, space) : head).replace(/[\s,;:.-]+$/, '')}…`;
}
