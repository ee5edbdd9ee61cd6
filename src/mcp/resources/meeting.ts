import { getMeetingOrThrow } from '../../db/queries/meetings.js';
import { meetingMarkdown } from '../../render/markdown.js';
import { variable, type ResourceDefinition } from './resource.js';

export const meetingResource: ResourceDefinition = {
  name: 'meeting',
  uriTemplate: 'syntheo://meetings/{meeting_id}',
  title: 'Meeting',
  description: 'Meeting details in Markdown (note, summaries, participants, action items), without the transcript text.',
  mimeType: 'text/markdown',
  read: (sqlite, vars) => meetingMarkdown(getMeetingOrThrow(sqlite, variable(vars, 'meeting_id') ?? '')),
};
