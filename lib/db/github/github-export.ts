import { tableName } from '../core/client.ts';
import { isConditionFailed } from '../core/errors.ts';
import { keys } from '../core/keys.ts';
import { transact } from '../core/transactions.ts';
import { projectItem } from '../projects/projects.ts';
import { githubRefusals, repositoryPut, type GitHubRepo } from './github.ts';

/**
 * What the import of an export file (lib/services/import-export/import-export.ts) writes of GitHub
 * beside lib/db/github/github.ts: a project's connection as the file had it (its times kept, with a
 * new secret), and the repository a project's line named that it could not connect taken off it.
 * Neither moves the project's `updated_at`: the project stays as the file has it.
 */

const projectFields = {
  owner: projectItem.stored('githubRepoOwner'),
  name: projectItem.stored('githubRepoName'),
};

/**
 * Connects `repo` to its project as an export file had it: the repository's item (refused
 * `repository_taken` when some project connects it) and the project's two fields, in one
 * transaction, refused `connected` when the project is gone or names another repository.
 */
export async function restoreConnection(repo: GitHubRepo): Promise<void> {
  await transact([
    repositoryPut(repo),
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.project(repo.orgId, repo.projectId),
          UpdateExpression: 'SET #owner = :owner, #name = :name',
          ConditionExpression:
            'attribute_exists(PK) AND (attribute_not_exists(#owner) OR #owner = :null OR (#owner = :owner AND #name = :name))',
          ExpressionAttributeNames: { '#owner': projectFields.owner, '#name': projectFields.name },
          ExpressionAttributeValues: { ':owner': repo.owner, ':name': repo.name, ':null': null },
        },
      },
      reason: githubRefusals.connected,
    },
  ]);
}

/**
 * Takes repository `owner/name` off a project that names it without connecting it (an import whose
 * repository is connected elsewhere): its two fields null again, so that it may connect one. One
 * UpdateItem, on condition that it names that repository still; false when it did not.
 */
export async function dropRepositoryClaim(orgId: number, projectId: number, owner: string, name: string): Promise<boolean> {
  try {
    await projectItem.updateNow(keys.project(orgId, projectId), {
      set: { githubRepoOwner: null, githubRepoName: null },
      if: { exists: true, equals: { githubRepoOwner: owner, githubRepoName: name } },
    });
    return true;
  } catch (err) {
    if (isConditionFailed(err)) return false;
    throw err;
  }
}
