/** The types of `node-version.js`, which stays plain JavaScript so that any Node.js can run it. */
export declare function nodeVersionProblem(version: string, range: string): string | undefined;
