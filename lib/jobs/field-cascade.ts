import { checkDeadline, PARALLELISM, type CascadeOptions, type PagePosition } from '../model/cascades.ts';
import { sameStoredValue, settledValues } from '../model/custom-fields.ts';
import { forEachLimited } from '../model/limited.ts';
import { fieldHolders, settleFieldValue } from '../db/cascades/field-values.ts';
import { fieldsOf } from '../db/projects/custom-fields.ts';
import { getProjectItem } from '../db/projects/projects.ts';

/**
 * The cascade of a custom field's delete, or of options deleted from it (lib/jobs/cascade.ts):
 * each issue of the project holding a value of the field has it settled on the field as it is now
 * (docs/custom-fields.md): taken off when the field is gone, its deleted options dropped otherwise.
 * One page of the project's lists (the sprints', then the backlog) at a time from where it
 * stopped; past the deadline it stops between pages with where it stopped. Returns the issues changed.
 */
export async function settleFieldValues(
  orgId: number,
  projectId: number,
  fieldId: number,
  options: CascadeOptions = {},
): Promise<number> {
  const project = await getProjectItem(orgId, projectId);
  if (!project) return 0; // the project's own cascade removes its issues
  const fields = fieldsOf(project).filter((f) => f.id === fieldId);
  const lists = ['S#', 'B#'] as const;
  let list = lists.find((l) => l === options.after?.list) ?? 'S#';
  let start = options.after?.key as PagePosition | undefined;
  let changed = 0;
  for (;;) {
    const page = await fieldHolders(orgId, projectId, fieldId, list, start);
    await forEachLimited(page.holders, PARALLELISM, async ({ key, value }) => {
      const settled = settledValues({ [fieldId]: value }, fields)[String(fieldId)];
      if (sameStoredValue(settled, value)) return;
      await settleFieldValue(key, fieldId, settled);
      changed++;
    });
    start = page.next;
    if (!start) {
      const next = lists[lists.indexOf(list) + 1];
      if (!next) return changed;
      list = next;
    }
    checkDeadline(options, { list, ...(start ? { key: start } : {}) });
  }
}
