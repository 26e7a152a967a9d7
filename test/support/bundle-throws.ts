/**
 * A handler that answers the stack of an error it throws (test/infra/bundles.test.ts bundles it as
 * a function is bundled and checks each frame names this file, its line and its function).
 */
export function failing(): never {
  throw new Error('mapped');
}

export function caller(): string {
  try {
    failing();
  } catch (err) {
    return (err as Error).stack ?? '';
  }
}

export const handler = async () => caller();
