/**
 * THE list of data migrations, in the order they run (lib/model/migrations.ts has the rules).
 * A release that changes what it reads of stored data adds one at the end, numbered next, whose
 * step is idempotent, resumable from its cursor, and safe while the API writes; `cdk deploy` and
 * `npm start` run the pending ones (docs/deploying.md). A migration is never removed or renamed:
 * its name is the key of its record. This module loads no data-layer code until a step runs, so
 * the CDK app and the local tools can read the list.
 */
import { checkRegistry, type Cursor, type Migration, registryVersion } from '../model/migrations.ts';

const steps = () => import('./steps.ts');

export const migrations: readonly Migration[] = [
  {
    name: '0001-token-names',
    description: 'the account name on every token issued before token items carried it (tokens:names)',
    step: async (cursor: Cursor | undefined) => (await steps()).tokenNamesStep(cursor),
  },
  {
    name: '0002-comment-pointers',
    description: 'the pointer of every comment written before GET /comments/{id} read pointers, completed (comments:pointers)',
    step: async (cursor: Cursor | undefined) => (await steps()).commentPointersStep(cursor),
  },
  {
    name: '0003-issue-indexes',
    description:
      'each organisation’s derived issue state (rank counters, number pointers, assigned-issue index, search records, ...) rebuilt where it differs (issues:reindex)',
    step: async (cursor: Cursor | undefined) => (await steps()).issueIndexesStep(cursor),
  },
  {
    name: '0004-workflow-states',
    description:
      'each project made before workflows gets one state per category, named after it (its issues stay as they are: in their category’s state), and its board counters',
    step: async (cursor: Cursor | undefined) => (await steps()).workflowStatesStep(cursor),
  },
  {
    name: '0005-comment-pointer-copies',
    description:
      'the body and updated_at of every comment on its pointer, so that its delete moves it into the trash without reading it (comments:pointers again)',
    step: async (cursor: Cursor | undefined) => (await steps()).commentPointersStep(cursor),
  },
];

checkRegistry(migrations);

/** Changes when a migration is added: the CDK stack's trigger runs the migrations when it changes. */
export const migrationsVersion = registryVersion(migrations);
