import type { Project } from '../schemas/projects.ts';
import type { Sprint } from '../schemas/sprints.ts';
import { projectItem } from '../db/projects/projects.ts';
import { sprintItem } from '../db/projects/sprints.ts';
import { withVersion } from '../db/core/versions.ts';

/** The REST API's projects and sprints, made from stored items as their declarations decode them (lib/db). */

export const toProject = (record: object): Project => {
  const p = projectItem.decode(record);
  return withVersion(
    {
      id: p.id,
      name: p.name,
      prefix: p.prefix,
      description: p.description,
      documentation_url: p.documentationUrl,
      production_url: p.productionUrl,
      github_repo_owner: p.githubRepoOwner,
      github_repo_name: p.githubRepoName,
      sprints_count: p.sprintsCount,
      created_at: p.createdAt,
      updated_at: p.updatedAt,
    },
    record,
  );
};

export const toSprint = (record: object): Sprint => {
  const s = sprintItem.decode(record);
  return withVersion(
    {
      id: s.id,
      project_id: s.projectId,
      name: s.name,
      slug: s.slug,
      description: s.description,
      status: s.status,
      start_date: s.startDate,
      end_date: s.endDate,
      actual_end_date: s.actualEndDate,
      issues_count: s.issuesCount,
      total_story_points: s.totalStoryPoints,
      completed_story_points: s.completedStoryPoints,
      report: s.report,
      created_at: s.createdAt,
      updated_at: s.updatedAt,
    },
    record,
  );
};
