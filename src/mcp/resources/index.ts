import { meetingResource } from './meeting.js';
import type { ResourceDefinition } from './resource.js';
import { seriesResource } from './series.js';
import { transcriptResource } from './transcript.js';

export const RESOURCES: readonly ResourceDefinition[] = [meetingResource, transcriptResource, seriesResource];
