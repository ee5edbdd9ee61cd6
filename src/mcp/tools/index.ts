import type { ToolDefinition } from '../tool.js';
import { declineProposalTool } from './decline_proposal.js';
import { exportMeetingTool } from './export_meeting.js';
import { getMeetingTool } from './get_meeting.js';
import { getMeetingTranscriptTool } from './get_meeting_transcript.js';
import { getProposalTool } from './get_proposal.js';
import { getRecordingImportTool } from './get_recording_import.js';
import { getRecurringMeetingHistoryTool } from './get_recurring_meeting_history.js';
import { importRecordingTool } from './import_recording.js';
import { listFoldersTool } from './list_folders.js';
import { listMeetingsTool } from './list_meetings.js';
import { listProposalsTool } from './list_proposals.js';
import { proposeMemoEditTool } from './propose_memo_edit.js';
import { proposeSummaryEditTool } from './propose_summary_edit.js';
import { searchTranscriptsTool } from './search_transcripts.js';

/** Every tool of the reference, in its order, then Syntheo's own. */
export const TOOLS: readonly ToolDefinition[] = [
  listMeetingsTool,
  listFoldersTool,
  getMeetingTool,
  getMeetingTranscriptTool,
  getRecurringMeetingHistoryTool,
  exportMeetingTool,
  proposeSummaryEditTool,
  proposeMemoEditTool,
  listProposalsTool,
  getProposalTool,
  declineProposalTool,
  importRecordingTool,
  getRecordingImportTool,
  searchTranscriptsTool,
];
