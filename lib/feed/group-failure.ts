/** Where a project's events stopped, and why. */
export class GroupFailure extends Error {
  override readonly name = 'GroupFailure';
  readonly index: number;
  constructor(index: number, cause: unknown) {
    super('change feed group failed', { cause });
    this.index = index;
  }
}
