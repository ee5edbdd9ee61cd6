import { cutNotice } from '../../render/answers.js';
import { fitMeeting } from '../../render/fit.js';
import { meetingMarkdown } from '../../render/markdown.js';
import { variable, type ResourceDefinition } from './resource.js';

export const meetingResource: ResourceDefinition = {
  name: 'meeting',
  uriTemplate: 'syntheo://meetings/{meeting_id}',
  title: 'Meeting',
  description: 'Meeting details in Markdown (note, summaries, participants, action items), without the transcript text.',
  mimeType: 'text/markdown',
  read: async (store, vars) => {
    // Cut like get_meeting's answer: a huge note or summary would not fit a model's context.
    const m = fitMeeting(await store.meetings.get(variable(vars, 'meeting_id') ?? ''));
    return m.truncated ? `${meetingMarkdown(m)}\n${cutNotice(m.truncated)}\n` : meetingMarkdown(m);
  },
};
