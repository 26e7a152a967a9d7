import fc from 'fast-check';

/**
 * Every property test of a run starts from one stated seed, so that the suite is the same run each
 * time and a failure it reports is replayed exactly (fast-check prints the seed and the path of the
 * shrunk counterexample). `FC_SEED=<n> npx vitest run ...` explores other cases; each property
 * states its own run count (`numRuns`).
 */
export const propertySeed = Number(process.env.FC_SEED ?? 20_261_126);
fc.configureGlobal({ seed: propertySeed });
