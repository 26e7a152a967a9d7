import * as z from 'zod';
import { createProject, deleteProject, getProject, updateProject } from '../../services/projects.ts';
import { Project, ProjectCreateFields, ProjectUpdateFields } from '../../schemas/projects.ts';
import { projectRef } from '../resolve.ts';
import { annotations, defineTool, deleteTool, type Tool } from '../tool.ts';

const projectId = () => projectRef();
const one = { project: Project };

/** Projects; get_workspace pages through them all (with their active sprints, labels and states). */
export const projectTools: Tool[] = [
  defineTool(
    'get_project',
    {
      description: 'One project.',
      input: z.object({ project_id: projectId() }),
      output: one,
      annotations: annotations.read,
    },
    async (caller, args) => ({ project: await getProject(caller, args.project_id) }),
  ),

  defineTool(
    'create_project',
    {
      description: 'Create a project; its unique prefix numbers its issues (APL-1).',
      input: z.object(ProjectCreateFields.shape),
      output: one,
      annotations: annotations.create,
    },
    async (caller, args) => ({ project: await createProject(caller, args) }),
  ),

  defineTool(
    'update_project',
    {
      description: "Change a project's fields. A new prefix renumbers no issue.",
      input: z.object({ project_id: projectId(), ...ProjectUpdateFields.shape }),
      output: one,
      annotations: annotations.update,
    },
    async (caller, { project_id, ...changes }) => ({ project: await updateProject(caller, project_id, changes) }),
  ),

  deleteTool(
    'delete_project',
    'project_id',
    {
      description: 'Delete a project and all in it.',
      input: z.object({ project_id: projectId() }),
      adminOnly: true,
    },
    async (caller, args) => {
      await deleteProject(caller, args.project_id);
      return args.project_id;
    },
  ),
];
