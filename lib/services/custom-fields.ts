import { writeFields } from '../db/cascades/field-values.ts';
import { fieldExpectationHolds, fieldsRead, withFieldVersion, type FieldsRead } from '../db/projects/custom-fields.ts';
import { getProjectItem } from '../db/projects/projects.ts';
import { isRefused, Refused, rereadOnStale, STALE } from '../db/core/transactions.ts';
import { planFieldCreate, planFieldDelete, planFieldUpdate, type FieldsPlan } from '../model/custom-field-plans.ts';
import type { FieldDefinition } from '../model/custom-fields.ts';
import type { Principal } from '../model/principal.ts';
import type { CustomField, FieldCreate, FieldUpdate } from '../schemas/custom-fields.ts';
import { ForbiddenError, NotFoundError, PreconditionFailedError, UnavailableError } from '../vocabulary/errors.ts';

/**
 * A project's custom fields (docs/custom-fields.md): their definitions, read by every member and
 * changed by admins. Each change is decided on the definitions as read (lib/model/custom-field-plans.ts)
 * and written on condition that they are still so; one that lost a race is decided again.
 */

export const toField = (orgId: number, projectId: number, f: FieldDefinition): CustomField =>
  withFieldVersion(fieldAnswer(projectId, f), orgId, projectId, f);

const fieldAnswer = (projectId: number, f: FieldDefinition): CustomField => ({
  id: f.id,
  project_id: projectId,
  key: f.key,
  name: f.name,
  type: f.type,
  description: f.description,
  required: f.required,
  options: f.options.map((o) => ({ id: o.id, name: o.name, color: o.color })),
  created_at: f.createdAt,
  updated_at: f.updatedAt,
});

async function readFields(caller: Principal, projectId: number): Promise<FieldsRead> {
  const project = await getProjectItem(caller.orgId, projectId);
  if (!project) throw new NotFoundError('Project');
  return fieldsRead(project);
}

/** Every field of the project, in creation order (at most 30: one page). */
export async function listFields(caller: Principal, projectId: number): Promise<CustomField[]> {
  return (await readFields(caller, projectId)).fields.map((f) => toField(caller.orgId, projectId, f));
}

export async function getField(caller: Principal, projectId: number, fieldId: number): Promise<CustomField> {
  const field = (await readFields(caller, projectId)).fields.find((f) => f.id === fieldId);
  if (!field) throw new NotFoundError('Custom field');
  return toField(caller.orgId, projectId, field);
}

/** Runs a change decided on the definitions as read, again while another change wins the race; 404 for a project gone. */
async function change(
  caller: Principal,
  projectId: number,
  plan: (read: FieldsRead, now: string) => FieldsPlan,
  /** The field it changes: `If-Match` names it as read (412 otherwise). */
  fieldId?: number,
) {
  try {
    return await rereadOnStale(async () => {
      // The project first: one the caller cannot see answers 404 to a member too, never 403.
      const read = await readFields(caller, projectId);
      if (caller.role !== 'admin') throw new ForbiddenError('Only admins may change custom fields');
      const field = read.fields.find((f) => f.id === fieldId);
      if (field && !fieldExpectationHolds(caller.orgId, projectId, field)) throw new PreconditionFailedError();
      const planned = plan(read, new Date().toISOString());
      await writeFields(caller.orgId, projectId, read, planned.change).catch((err: unknown) => {
        throw isRefused(err, 'fields') ? new Refused(STALE) : err;
      });
      return planned.field;
    });
  } catch (err) {
    if (isRefused(err, STALE)) throw new UnavailableError();
    throw err;
  }
}

/** Creates a field; 422 for a name or key taken, a type's options wrong, or a limit reached. */
export async function createField(
  caller: Principal,
  projectId: number,
  input: FieldCreate,
  /** An export file's field: its own id-free definition with its times. */
  times?: { created_at: string; updated_at: string },
): Promise<CustomField> {
  const field = await change(caller, projectId, (read, now) =>
    planFieldCreate(read, input, times ?? { created_at: now, updated_at: now }),
  );
  return toField(caller.orgId, projectId, field!);
}

/** Updates a field's name, description, required flag or options; its values follow at once (a deleted option's in the background). */
export async function updateField(
  caller: Principal,
  projectId: number,
  fieldId: number,
  input: FieldUpdate,
): Promise<CustomField> {
  const field = await change(caller, projectId, (read, now) => planFieldUpdate(read, fieldId, input, now), fieldId);
  return toField(caller.orgId, projectId, field!);
}

/** Deletes a field: no issue shows it from then on, and its values are taken off in the background. */
export async function deleteField(caller: Principal, projectId: number, fieldId: number): Promise<void> {
  await change(caller, projectId, (read) => planFieldDelete(read, fieldId), fieldId);
}
