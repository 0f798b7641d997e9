/** A horizontal bar chart for the terminal: one row per label, bars scaled to the largest value. */
export function barChart(rows: { label: string; value: number }[], width = 40): string[] {
  const max = Math.max(1, ...rows.map((r) => r.value));
  const labelWidth = Math.max(0, ...rows.map((r) => r.label.length));
  const valueWidth = Math.max(0, ...rows.map((r) => String(r.value).length));
  const eighths = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
  return rows.map(({ label, value }) => {
    const cells = (value / max) * width;
    const bar = '█'.repeat(Math.floor(cells)) + eighths[Math.round((cells % 1) * 7)];
    return `${label.padEnd(labelWidth)}  ${String(value).padStart(valueWidth)} ${bar}`;
  });
}
