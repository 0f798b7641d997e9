/** A JSON body as CSV (RFC 4180): one row per record, a header row of the records' members in first-seen order. */

export function toCsv(body: unknown): string {
  if (typeof body === 'string') return body;
  const rows = records(body);
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const row of rows)
    for (const name of Object.keys(row))
      if (!seen.has(name)) {
        seen.add(name);
        columns.push(name);
      }
  const lines = [columns.map(field).join(',')];
  for (const row of rows) lines.push(columns.map((name) => field(row[name])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** The records a body holds: its items, those of its first list of records (`{data: […]}`), or the body itself. */
function records(body: unknown): Record<string, unknown>[] {
  const list = Array.isArray(body) ? body : listInside(body);
  if (list !== undefined) return list.map((item) => (isRecord(item) ? item : { value: item }));
  return isRecord(body) ? [body] : [{ value: body }];
}

function listInside(body: unknown): unknown[] | undefined {
  if (!isRecord(body)) return undefined;
  for (const value of Object.values(body)) if (Array.isArray(value) && value.some(isRecord)) return value;
  return undefined;
}

function field(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
