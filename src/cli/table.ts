/** A plain text table: columns padded to their widest cell, numbers right-aligned. */
export function formatTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const numeric = header.map(
    (_, column) => rows.length > 0 && rows.every((row) => /^[-+]?[\d.]+%?$|^-$/.test(row[column] ?? "")),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        numeric[column] ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0),
      )
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}

/** A rate in [0, 1] as a fixed 3-decimal string; "-" when undefined. */
export function fmtRate(value: number | null | undefined): string {
  return value === null || value === undefined || Number.isNaN(value) ? "-" : value.toFixed(3);
}
