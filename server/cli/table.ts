/** Plain-text tables for the terminal: a header row, columns padded to their widest cell. */
export interface Column<T> {
  title: string;
  value: (row: T) => string;
  /** Right-aligned (numbers). */
  right?: boolean;
}

export function formatTable<T>(columns: readonly Column<T>[], rows: readonly T[]): string {
  const cells = rows.map((r) => columns.map((c) => c.value(r)));
  const widths = columns.map((c, i) => Math.max(c.title.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (columns[i]!.right ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.title)), ...cells.map(line)].join("\n") + "\n";
}
