/**
 * What an import reads at most, so that every file is read in time and memory bounded by its size
 * (docs/limits.md: Imports). A file past one of them is refused, naming it, before anything is written.
 */
export const importBounds = {
  /** A CSV record (the header included), in characters: a quote never closed stops here, not at the end of the file. */
  csvRecordChars: 32 * 1024 * 1024,
  /** A line of an export file, in characters (an item is at most 400 KB; a line carries one and its relations). */
  exportLineChars: 8 * 1024 * 1024,
  /** A GitHub issues JSON file, read whole, in characters. */
  jsonFileChars: 256 * 1024 * 1024,
} as const;

/** A bound as a message names it: `33,554,432 characters`. */
export const characters = (n: number) => `${n.toLocaleString('en')} characters`;
