import { characters, importBounds } from './bounds.ts';

/**
 * CSV as RFC 4180 writes it, read incrementally: fields separated by commas, records by CRLF or
 * LF (a lone CR too), a field in double quotes may hold commas, line breaks and doubled quotes
 * (`""` is one `"`). A byte order mark before the first field is dropped. Chunks may split a
 * record anywhere (inside quotes, between `\r` and `\n`, between the two quotes of `""`): `push`
 * keeps what is unfinished and answers only the records it completed, so a file of any size is
 * read in bounded memory.
 */
export class CsvReader {
  /** Characters a record may hold (its fields and separators), at most. */
  private readonly maxRecordChars: number;
  private recordChars = 0;
  private field = '';
  private record: string[] = [];
  private quoted = false;
  /** Inside quotes; a quote just seen may be the end of the field or the first of `""`. */
  private inQuotes = false;
  private quotePending = false;
  /** A CR just ended a record: a LF right after it belongs to it. */
  private afterCr = false;
  private started = false;
  /** Line of the input (1-based) the current record starts on, for error reports. */
  private line = 1;
  private recordLine = 1;

  constructor(maxRecordChars = importBounds.csvRecordChars) {
    this.maxRecordChars = maxRecordChars;
  }

  /** The records completed by this chunk, each with the line it starts on. */
  push(chunk: string): { fields: string[]; line: number }[] {
    const done: { fields: string[]; line: number }[] = [];
    let text = chunk;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    for (let i = 0; i < text.length; i++) {
      const c = text[i] as string;
      // A record is held whole until it ends: one past the bound (a quote never closed) is refused there.
      if (++this.recordChars > this.maxRecordChars)
        throw new CsvError(this.recordLine, `a record is longer than ${characters(this.maxRecordChars)}`);
      if (this.afterCr) {
        this.afterCr = false;
        if (c === '\n') continue;
      }
      if (this.inQuotes) {
        if (this.quotePending) {
          this.quotePending = false;
          if (c === '"') {
            this.field += '"';
            continue;
          }
          this.inQuotes = false;
          // falls through: the character after the closing quote
        } else if (c === '"') {
          this.quotePending = true;
          continue;
        } else {
          if (c === '\n' || c === '\r') this.line += 1;
          // A CRLF inside quotes is one line break of the field, kept as written.
          this.field += c;
          continue;
        }
      }
      if (c === '"' && this.field === '' && !this.quoted) {
        this.inQuotes = true;
        this.quoted = true;
      } else if (c === ',') {
        this.endField();
      } else if (c === '\n' || c === '\r') {
        this.endField();
        done.push({ fields: this.record, line: this.recordLine });
        this.record = [];
        this.recordChars = 0;
        this.line += 1;
        this.recordLine = this.line;
        this.afterCr = c === '\r';
      } else {
        // Text after a closing quote (`"a"b`) is kept: lenient, as most readers are.
        this.field += c;
      }
    }
    return done;
  }

  /** The last record, when the input does not end with a line break. */
  end(): { fields: string[]; line: number }[] {
    if (this.quotePending) {
      this.quotePending = false;
      this.inQuotes = false;
    }
    if (this.inQuotes) throw new CsvError(this.recordLine, 'a quoted field is not closed before the end of the file');
    if (this.field === '' && this.record.length === 0 && !this.quoted) return [];
    this.endField();
    const last = { fields: this.record, line: this.recordLine };
    this.record = [];
    return [last];
  }

  private endField() {
    this.record.push(this.field);
    this.field = '';
    this.quoted = false;
  }
}

/** A file that is not CSV (an unclosed quote), at the line its record starts on. */
export class CsvError extends Error {
  readonly line: number;
  constructor(line: number, message: string) {
    super(message);
    this.name = 'CsvError';
    this.line = line;
  }
}

/** Every record of a whole text (tests, small files); `CsvReader` reads a stream. */
export function parseCsv(text: string): string[][] {
  const reader = new CsvReader();
  return [...reader.push(text), ...reader.end()].map((r) => r.fields);
}

/** One field as RFC 4180 writes it: quoted when it holds a comma, quote or line break (or starts with a space). */
export function formatCsvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Records as CSV text, CRLF after each (RFC 4180). */
export function formatCsv(records: string[][]): string {
  return records.map((r) => `${r.map(formatCsvField).join(',')}\r\n`).join('');
}
