/**
 * Wall-clock times of a time zone to instants, for sources that write date-times without an
 * offset (Jira's CSV writes them in the exporting user's zone). Pure: Intl knows the zones.
 */

const formats = new Map<string, Intl.DateTimeFormat>();

/** How far `timeZone`'s clock is ahead of UTC at instant `t` (ms). */
function offsetAt(t: number, timeZone: string): number {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timeZone, format);
  }
  const part = Object.fromEntries(format.formatToParts(new Date(t)).map((p) => [p.type, Number(p.value)]));
  const wall = Date.UTC(part.year ?? 0, (part.month ?? 1) - 1, part.day ?? 1, part.hour ?? 0, part.minute ?? 0, part.second ?? 0);
  return wall - Math.floor(t / 1000) * 1000;
}

/**
 * The instant (ISO 8601 UTC) at which `timeZone`'s clocks read this wall time (`month` from 0).
 * A time skipped or repeated by a change of offset (summer time) is read with one of the two
 * offsets around the change. Undefined for a day that does not exist.
 */
export function instantIn(
  wall: { year: number; month: number; day: number; hour: number; minute: number },
  timeZone: string,
): string | undefined {
  const guess = Date.UTC(wall.year, wall.month, wall.day, wall.hour, wall.minute);
  const check = new Date(guess);
  if (check.getUTCDate() !== wall.day || check.getUTCMonth() !== wall.month) return undefined;
  if (timeZone === 'UTC') return check.toISOString();
  const first = guess - offsetAt(guess, timeZone);
  const second = guess - offsetAt(first, timeZone);
  return new Date(Math.min(first, second)).toISOString();
}
