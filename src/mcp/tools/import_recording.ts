import * as v from 'valibot';
import { importText } from '../../render/answers.js';
import { RecordingImportSchema, optionalString, requiredString } from '../schema.js';
import { STAGES_CHANGE, defineTool } from '../tool.js';

export const importRecordingTool = defineTool({
  name: 'import_recording',
  title: 'Import a recording',
  description:
    'Creates a meeting from a recording (audio or video) or a transcript file (WebVTT, SRT, Whisper JSON, "Speaker: text"; not transcribed again) on this computer ' +
    'and queues it for the app (syntheo-worker must run), which transcribes and summarises it. ' +
    'Keep meeting_id and job_id; poll get_recording_import until done or failed. Leave the file in place until then. duplicate_of names an earlier import of the same content.',
  input: v.object({
    file_path: requiredString('Absolute path; format detected from the content: WAV, MP3, OGG, MP4, M4A, FLAC, WebM, AAC, any container ffmpeg reads, or a transcript.'),
    title: optionalString('Default: the file name.'),
    folder_path: optionalString('An existing folder path.'),
    request_key: optionalString('1-200 bytes; the same key returns the original job.'),
  }),
  output: v.object({
    ...RecordingImportSchema.entries,
    duplicate_of: v.optional(
      v.pipe(
        v.object({ job_id: v.string(), meeting_id: v.string(), title: v.string(), processing_status: v.string() }),
        v.description('Present when the same content was imported before: that import. This call still queued a new job.'),
      ),
    ),
  }),
  annotations: STAGES_CHANGE,
  text: importText,
  // The same path as `syntheo imports add`: file checks, the worker heartbeat, one transaction.
  handler: (store, a) => store.imports.enqueue({ filePath: a.file_path, title: a.title, folderPath: a.folder_path, requestKey: a.request_key }),
});
