// The shapes the domain returns. The MCP tools return them as structuredContent, the CLI prints them
// with --json, and export/load use them: one vocabulary, snake_case as on the wire. Each is declared
// once, as a Valibot schema in src/db/model/shapes.ts; the types here are inferred from those.
export type {
  ActionItem,
  ExportSegment,
  ExportTranscript,
  ExportTruncation,
  FieldCut,
  Folder,
  ImportProgress,
  MeetingDetail,
  MeetingExport,
  MeetingListItem,
  MeetingRecord,
  Pagination,
  Participant,
  ProposalDetail,
  ProposalItem,
  RecordingImport,
  SearchHit,
  SeriesRef,
  Summary,
  TranscriptInfo,
  TranscriptPage,
  TranscriptTurn,
  TranscriptWord,
  Truncation,
} from '../model/shapes.js';
export { EXPORT_FORMAT } from '../schema/enums.js';

/** A page request (clamped by queries/pagination.ts): a parameter, not a shape on the wire. */
export interface Page {
  limit: number;
  offset: number;
}
