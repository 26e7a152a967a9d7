import * as z from 'zod';
import { createProject, deleteProject, getProject, listProjects, updateProject } from '../../domain/projects.ts';
import { Project, ProjectCreateFields, ProjectUpdateFields } from '../../schemas/projects.ts';
import { listInfo, listInput, listThrough } from '../list.ts';
import { annotations, defineTool, id, type Tool } from '../tool.ts';

const projectId = () => id('Id of the project (see list_projects).');
const one = { project: Project };

export const projectTools: Tool[] = [
  defineTool(
    'list_projects',
    {
      title: 'List projects',
      description:
        "List the organisation's projects (id, name, issue prefix, sprint count), oldest first. Start here to find a project id.",
      input: z.object(listInput),
      output: { projects: z.array(Project), ...listInfo },
      annotations: annotations.read,
    },
    async (caller, args) => {
      const { items, ...info } = await listThrough(args, (page) => listProjects(caller, page));
      return { projects: items, ...info };
    },
  ),

  defineTool(
    'get_project',
    {
      title: 'Get a project',
      description: 'Get one project by id, with its issue prefix, links and sprint count.',
      input: z.object({ project_id: projectId() }),
      output: one,
      annotations: annotations.read,
    },
    async (caller, args) => ({ project: await getProject(caller, args.project_id) }),
  ),

  defineTool(
    'create_project',
    {
      title: 'Create a project',
      description:
        'Create a project. `prefix` (2 to 4 uppercase letters or digits, unique in the organisation) numbers its issues: prefix "APL" gives APL-1, APL-2, ...',
      input: z.object(ProjectCreateFields.shape),
      output: one,
      annotations: annotations.create,
    },
    async (caller, args) => ({ project: await createProject(caller, args) }),
  ),

  defineTool(
    'update_project',
    {
      title: 'Update a project',
      description:
        'Change some fields of a project; fields left out keep their value, null clears an optional one. Changing `prefix` does not renumber existing issues.',
      input: z.object({ project_id: projectId(), ...ProjectUpdateFields.shape }),
      output: one,
      annotations: annotations.update,
    },
    async (caller, { project_id, ...changes }) => ({ project: await updateProject(caller, project_id, changes) }),
  ),

  defineTool(
    'delete_project',
    {
      title: 'Delete a project',
      description:
        'Permanently delete a project with all its sprints, issues and comments. Admins only. This cannot be undone: confirm with the user first.',
      input: z.object({ project_id: projectId() }),
      output: { deleted: z.literal(true), project_id: z.number().int() },
      annotations: annotations.delete,
    },
    async (caller, args) => {
      await deleteProject(caller, args.project_id);
      return { deleted: true as const, project_id: args.project_id };
    },
  ),
];
