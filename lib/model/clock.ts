/** The current instant, ISO 8601 UTC with milliseconds (every `date-time` the API writes). */
export const now = () => new Date().toISOString();

/** "Today": the UTC calendar date (YYYY-MM-DD). Tests move it with a fake system clock. */
export const today = () => now().slice(0, 10);

/** The UTC day after `day` (YYYY-MM-DD). */
export function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** Whole UTC days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00.000Z`) - Date.parse(`${from}T00:00:00.000Z`)) / 86_400_000);
