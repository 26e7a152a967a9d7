// `npm start`'s first step, in plain JavaScript that any Node.js runs: before the service loads
// (it and tsx need a newer Node.js and would fail with a screen of warnings), refuse a Node.js older
// than package.json's `engines.node` with one line.
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The problem with running on Node.js `version` (`22.3.0`) when `engines` asks for `range`
 * (`>=22`, `>=22.12.0`), as one line; undefined when it may run.
 * @param {string} version
 * @param {string} range
 * @returns {string | undefined}
 */
export function nodeVersionProblem(version, range) {
  const wanted = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!wanted) return `package.json engines.node must read ">=MAJOR[.MINOR[.PATCH]]", not "${range}"`;
  const need = wanted.slice(1).map((part) => Number(part || 0));
  const have = version.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if ((have[i] || 0) > need[i]) return undefined;
    if ((have[i] || 0) < need[i]) {
      return `npm start needs Node.js ${range.replace(/^>=\s*/, '')} or newer (package.json engines: ${range}); this is Node.js ${version.replace(/^v/, '')}: see .nvmrc`;
    }
  }
  return undefined;
}

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
const problem = nodeVersionProblem(process.versions.node, manifest.engines.node);
const runDirectly = process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (problem && runDirectly) {
  console.error(problem);
  process.exit(1);
}
