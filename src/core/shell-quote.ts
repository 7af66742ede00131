/** A word for a POSIX shell: as is when it holds only safe characters, else single-quoted. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_/.,:=+@%-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
