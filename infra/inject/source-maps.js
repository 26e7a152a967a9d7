/**
 * Stack traces mapped to the TypeScript sources, on first use: injected into every function's
 * bundle (infra/bundling.ts: `inject`) in place of Node's `--enable-source-maps`, which reads and
 * parses the bundle's source map, and measures the length of every line of the bundle, while the
 * bundle loads: about a third of a function's init (tools/bench/README.md). Here the map of a file
 * is read only when a stack that passes through it is first formatted (an error logged, a 500), once
 * per container, and each frame in a mapped file is written as Node writes it with
 * `--enable-source-maps`: `at name (lib/…/file.ts:line:column)`.
 *
 * Plain JavaScript: nothing runs it unbundled; `test/infra/bundles.test.ts` checks a bundle's logged
 * stack trace names the sources.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath, URL } from 'node:url';

/** Each file's map (null: it has none), by the URL the stack names it by. */
const maps = new Map();

function mapOf(file) {
  if (typeof file !== 'string' || !file.startsWith('file://')) return null;
  let map = maps.get(file);
  if (map === undefined) {
    try {
      const path = fileURLToPath(file);
      const payload = JSON.parse(readFileSync(`${path}.map`, 'utf8'));
      // The map's sources are relative to its own folder, as Node resolves them.
      payload.sources = payload.sources.map((source) => fileURLToPath(new URL(source, file)));
      map = new SourceMap(payload);
    } catch {
      map = null;
    }
    maps.set(file, map);
  }
  return map;
}

/** One frame as V8 writes it, with the original place (and name, where the map has it). */
function frame(map, site, caller) {
  const entry = map.findEntry(site.getLineNumber() - 1, site.getColumnNumber() - 1);
  if (!entry || entry.originalSource === undefined || entry.originalLine === undefined) return `${site}`;
  const enclosing = map.findEntry(site.getEnclosingLineNumber() - 1, site.getEnclosingColumnNumber() - 1);
  const callerName =
    caller && caller.getFileName() === site.getFileName()
      ? map.findEntry(caller.getLineNumber() - 1, caller.getColumnNumber() - 1)?.name
      : undefined;
  const typeName = site.getTypeName();
  const prefix = site.isAsync() ? 'async ' : site.isConstructor() ? 'new ' : '';
  const ownName = site.getFunctionName() ?? site.getMethodName();
  const name = `${typeName !== null && typeName !== 'global' ? `${typeName}.` : ''}${enclosing?.name || callerName || ownName || '<anonymous>'}`;
  return `${prefix}${name} (${entry.originalSource}:${entry.originalLine + 1}:${entry.originalColumn + 1})`;
}

Error.prepareStackTrace = (error, trace) => {
  let head;
  try {
    head = Error.prototype.toString.call(error);
  } catch {
    head = '<error>';
  }
  return (
    head +
    trace
      .map((site, i) => {
        try {
          const map = mapOf(site.getFileName());
          return `\n    at ${map ? frame(map, site, trace[i + 1]) : site}`;
        } catch {
          return `\n    at ${site}`;
        }
      })
      .join('')
  );
};
