/** The events a connected repository's webhook sends (what to tick in GitHub's settings: docs/github.md). */
export const githubEvents = ['pull_request', 'push', 'create', 'delete'] as const;
/** What a link on GitHub is, and the states it can be in. */
export const linkKinds = ['pull_request', 'branch', 'commit'] as const;
export const linkStates = ['open', 'draft', 'merged', 'closed'] as const;
export type LinkState = (typeof linkStates)[number];
