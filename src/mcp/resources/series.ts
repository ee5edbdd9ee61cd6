import { seriesMarkdown } from '../../render/markdown.js';
import { variable, type ResourceDefinition } from './resource.js';

/** The reference's bound for the series resource. */
export const SERIES_RESOURCE_LIMIT = 100;

export const seriesResource: ResourceDefinition = {
  name: 'series',
  uriTemplate: 'syntheo://series/{series_id}',
  title: 'Recurring series',
  description: `A recurring series and up to ${SERIES_RESOURCE_LIMIT} of its meetings, newest first, in Markdown.`,
  mimeType: 'text/markdown',
  read: async (store, vars) => {
    const series = await store.series.get(variable(vars, 'series_id') ?? '');
    const { meetings, total } = await store.series.meetings(series.id, { limit: SERIES_RESOURCE_LIMIT, offset: 0 });
    return seriesMarkdown(series, meetings, total);
  },
};
