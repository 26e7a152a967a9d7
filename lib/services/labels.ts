import type { PageRequest } from '../db/core/list.ts';
import * as store from '../db/issues/labels.ts';
import { Refused, rereadOnStale, isRefused, STALE } from '../db/core/transactions.ts';

import { getProjectItem } from '../db/projects/projects.ts';

import { DEFAULT_LABEL_COLOR, labelLimits } from '../vocabulary/label-limits.ts';

import type { Label, LabelCreate, LabelUpdate } from '../schemas/labels.ts';
import { NotFoundError, TransitionError, UnavailableError, ValidationError } from '../vocabulary/errors.ts';

import type { Principal } from '../model/principal.ts';
import { explainRefusal, projectNotThere, type Meanings } from './refusals.ts';

import { type LabelRefusal } from '../db/core/refusals.ts';
import { toLabel } from '../../lib/resources/issues.ts';

/**
 * A project's label catalogue (docs/api.md: Labels), and what issues make of it: an issue stores
 * label ids and shows them in the catalogue's current spelling; ids the catalogue no longer holds
 * (a label in the trash, or purged with its cascade not yet through) are not shown and match no filter.
 */

const nameTakenMessage = 'name has already been taken by another label of this project (names are unique ignoring case)';
const fullMessage = `labels: a project may have at most ${labelLimits.perProject} labels`;

/** The label with its project, or 404 for whichever is missing (another organisation's included). */
async function loadLabel(caller: Principal, projectId: number, labelId: number) {
  const { project, label } = await store.getLabelFamily(caller.orgId, projectId, labelId);
  if (!project) throw new NotFoundError('Project');
  if (!label) throw new NotFoundError('Label');
  return { project, label };
}

export async function listLabels(caller: Principal, projectId: number, page: PageRequest) {
  const { page: result, total } = await store.listLabels(caller.orgId, projectId, page);
  if (total === undefined) throw new NotFoundError('Project');
  return { page: result, items: result.items.map(toLabel), total };
}

export async function getLabel(caller: Principal, projectId: number, labelId: number): Promise<Label> {
  return toLabel((await loadLabel(caller, projectId, labelId)).label);
}

/** Creates a label; 422 when its name is taken (ignoring case) or the project has 200 labels. */
export async function createLabel(
  caller: Principal,
  projectId: number,
  input: LabelCreate,
  /** An export file's label (lib/services/import-export/import-export.ts): its own times. */
  times?: { created_at: string; updated_at: string },
): Promise<Label> {
  try {
    return await store.insertLabel(
      caller.orgId,
      projectId,
      {
        name: input.name,
        color: input.color ?? DEFAULT_LABEL_COLOR,
        description: input.description ?? null,
      },
      times,
    );
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    if (err.reason === 'name_taken') throw new ValidationError([nameTakenMessage]);
    if (err.reason === 'project') {
      // Refused by the project's condition: gone, or full. One read tells which (refusals only).
      if (!(await getProjectItem(caller.orgId, projectId))) throw new NotFoundError('Project');
      throw new ValidationError([fullMessage]);
    }
    throw err;
  }
}

/** A refused label write after its read: raced by another write of the label (read again), or an answer. */
function labelRefusal(err: unknown): unknown {
  return explainRefusal(err, labelRefusals);
}

const labelRefusals = {
  name_taken: () => new ValidationError([nameTakenMessage]),
  project: () => new NotFoundError('Project'),
} satisfies Meanings<Extract<LabelRefusal, 'name_taken' | 'project'>>;

/**
 * Partial update (PUT and PATCH alike). A rename or recolour is shown by every issue carrying the
 * label at once, with no issue written; it changes the label's ETag (and the project's), no issue's version.
 */
export async function updateLabel(caller: Principal, projectId: number, labelId: number, changes: LabelUpdate): Promise<Label> {
  try {
    return await rereadOnStale(async () => {
      const { label } = await loadLabel(caller, projectId, labelId);
      return store.updateLabel(caller.orgId, projectId, label, changes).then(toLabel, (err: unknown) => {
        // Renamed or deleted since the read: read again (a 404 then, or the write on the new name).
        throw isRefused(err, 'label') ? new Refused(STALE) : err;
      });
    });
  } catch (err) {
    if (isRefused(err, STALE)) throw new UnavailableError();
    throw labelRefusal(err);
  }
}

/**
 * Deletes a label into the organisation's trash (docs/trash.md): no issue shows it from then on and
 * no filter matches it; a restore shows it on its issues again, and its purge (or expiry) takes it
 * off them in the background (lib/jobs/cascade.ts).
 */
export async function deleteLabel(caller: Principal, projectId: number, labelId: number): Promise<void> {
  try {
    await rereadOnStale(async () => {
      // The organisation with the label (its trash retention), in the one read.
      const { project, label, org } = await store.getLabelFamilyWithOrganisation(caller.orgId, projectId, labelId);
      if (!project) throw new NotFoundError('Project');
      if (!label) throw new NotFoundError('Label');
      await store.trashLabel(caller.orgId, projectId, label, caller.accountId, org).catch((err: unknown) => {
        throw isRefused(err, 'label') ? new Refused(STALE) : err;
      });
    });
  } catch (err) {
    if (isRefused(err, STALE)) throw new UnavailableError();
    throw labelRefusal(err);
  }
}

/**
 * Brings a trashed label (`stored`: as it was stored) back whole: the same id, name, colour,
 * description and version, on every issue that kept its id (docs/trash.md). 422 `{error}` when it
 * cannot come back as it was: a label of its name was made meanwhile, its project is full or gone;
 * 404 when the trash item went meanwhile (restored or purged).
 */
export async function restoreTrashedLabel(caller: Principal, stored: Record<string, unknown>, deletedAt: string): Promise<Label> {
  const label = toLabel(stored);
  try {
    await store.restoreLabel(caller.orgId, stored, deletedAt);
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    const meanings = {
      name_taken: () =>
        new TransitionError(
          `Label ${label.id} cannot come back: project ${label.project_id} has another label named '${label.name}' now (names are unique ignoring case); rename or delete that one, then restore`,
        ),
      label: () => new TransitionError(`Label ${label.id} exists again`),
      trashed: () => new NotFoundError('Trash item'),
    } satisfies Partial<Meanings<LabelRefusal>>;
    if (err.reason === 'project') {
      // Refused by the project's condition: gone, or full. One read tells which (refusals only).
      if (!(await getProjectItem(caller.orgId, label.project_id))) {
        throw new TransitionError(`Label ${label.id} cannot come back: ${await projectNotThere(caller.orgId, label.project_id)}`);
      }
      throw new TransitionError(
        `Label ${label.id} cannot come back: project ${label.project_id} already has ${labelLimits.perProject} labels, the most it may have; delete one, then restore`,
      );
    }
    throw explainRefusal(err, meanings);
  }
  return label;
}
