import { createReadStream } from 'node:fs';
import { importExport } from '../../lib/services/import-export/import-export.ts';
import { apiClient, newOrganisation } from './api.ts';

/**
 * The export file at `path` imported into a new organisation, read from the file as the CLI reads
 * it: the organisation, the import's report, and a client of the organisation's admin.
 */
export async function importIntoNewOrganisation(gateway: { readonly baseUrl: string }, path: string) {
  const target = await newOrganisation();
  const report = await importExport({ orgId: target.orgId }, () => createReadStream(path, 'utf8'));
  return { target, report, there: apiClient(gateway.baseUrl, target.admin.token) };
}
