import * as v from 'valibot';
import { RecordingImportSchema, requiredString } from '../schema.js';
import { READ_ONLY, defineTool, lazy } from '../tool.js';

// The query module loads with the first call, not at start-up (see ToolDefinition).
const queries = lazy(() => import('../../db/queries/imports.js'));

export const getRecordingImportTool = defineTool({
  name: 'get_recording_import',
  title: 'Recording import status',
  description:
    'The durable state of a recording import, without starting any work. processing_status: queued, importing, transcribing, summarizing, done or failed ' +
    '(error says why). summary_status: pending, done, skipped_no_model, skipped_too_short or failed; a successful import can have a skipped summary. ' +
    'queued only progresses while the app (syntheo-worker) is running. When done, read the meeting with get_meeting.',
  input: v.object({ job_id: requiredString('The job_id (job_...) returned by import_recording.') }),
  output: RecordingImportSchema,
  annotations: READ_ONLY,
  handler: async (sqlite, a) => (await queries()).getImportOrThrow(sqlite, a.job_id),
});
