import * as v from 'valibot';
import { importText } from '../../render/answers.js';
import { RecordingImportSchema, requiredString } from '../schema.js';
import { READ_ONLY, defineTool, lazy } from '../tool.js';

// The query module loads with the first call, not at start-up (see ToolDefinition).
const queries = lazy(() => import('../../db/queries/imports.js'));

export const getRecordingImportTool = defineTool({
  name: 'get_recording_import',
  title: 'Recording import status',
  description:
    'State of an import: processing_status queued, importing, transcribing, summarizing, done or failed (see error); ' +
    'summary_status pending, done, skipped_no_model, skipped_too_short or failed. A done import can have a skipped summary. queued waits for the app.',
  input: v.object({ job_id: requiredString('job_... from import_recording.') }),
  output: RecordingImportSchema,
  annotations: READ_ONLY,
  text: importText,
  handler: async (sqlite, a) => (await queries()).getImportOrThrow(sqlite, a.job_id),
});
