import { variable, type ResourceDefinition } from './resource.js';

export const meetingResource: ResourceDefinition = {
  name: 'meeting',
  uriTemplate: 'syntheo://meetings/{meeting_id}',
  title: 'Meeting',
  description: 'Meeting details in Markdown (note, summaries, participants, action items), without the transcript text.',
  mimeType: 'text/markdown',
  read: async (sqlite, vars) => {
    const [{ getMeetingOrThrow }, { meetingMarkdown }] = await Promise.all([import('../../db/queries/meetings.js'), import('../../render/markdown.js')]);
    return meetingMarkdown(getMeetingOrThrow(sqlite, variable(vars, 'meeting_id') ?? ''));
  },
};
