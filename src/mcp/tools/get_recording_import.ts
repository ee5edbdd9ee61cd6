import * as v from 'valibot';
import { importText } from '../../render/answers.js';
import { RecordingImportSchema, requiredString } from '../schema.js';
import { READ_ONLY, defineTool } from '../tool.js';

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
  handler: (store, a) => store.imports.get(a.job_id),
});
