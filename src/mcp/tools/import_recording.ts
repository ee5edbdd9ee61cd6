import * as v from 'valibot';
import { RecordingImportSchema, optionalString, requiredString } from '../schema.js';
import { STAGES_CHANGE, defineTool, lazy } from '../tool.js';

// The query module loads with the first call, not at start-up (see ToolDefinition).
const queries = lazy(() => import('../../db/queries/imports.js'));

export const importRecordingTool = defineTool({
  name: 'import_recording',
  title: 'Import a recording',
  description:
    'Creates a meeting from an audio or video file on this computer (WAV, MP3, OGG, MP4, M4A, FLAC, WebM, AAC, or any container ffmpeg reads: MKV, MOV, AVI ...) or a transcript file (WebVTT, SRT, Whisper JSON, "Speaker: text" lines; not transcribed again) and queues it: ' +
    'the Syntheo app (syntheo-worker) must be running on the same database; it sends the audio to the configured transcription server, ' +
    'then summarises the transcript with the configured LLM. Returns meeting_id and job_id at once: keep them, ' +
    'then poll get_recording_import until processing_status is done or failed. The file is not copied: it must stay in place until the job ends. ' +
    'Pass a request_key to retry safely: the same key returns the original job, even after a failure. ' +
    'If the same content was imported before, duplicate_of names that meeting.',
  input: v.object({
    file_path: requiredString('Absolute path of the recording or transcript on this computer. The format is detected from the content.'),
    title: optionalString('Meeting title; defaults to the file name without its extension.'),
    folder_path: optionalString('An existing folder path (from list_folders) to file the meeting in.'),
    request_key: optionalString('1 to 200 bytes. Reuse the same key to retry the same import: the original job comes back instead of a duplicate.'),
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
  // The same path as `syntheo imports add`: file checks, the worker heartbeat, one transaction.
  handler: async (sqlite, a) => {
    const request = { filePath: a.file_path, title: a.title, folderPath: a.folder_path, requestKey: a.request_key };
    return (await queries()).enqueueImport(sqlite, request);
  },
});
