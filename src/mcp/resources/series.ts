import { variable, type ResourceDefinition } from './resource.js';

/** The reference's bound for the series resource. */
export const SERIES_RESOURCE_LIMIT = 100;

export const seriesResource: ResourceDefinition = {
  name: 'series',
  uriTemplate: 'syntheo://series/{series_id}',
  title: 'Recurring series',
  description: `A recurring series and up to ${SERIES_RESOURCE_LIMIT} of its meetings, newest first, in Markdown.`,
  mimeType: 'text/markdown',
  read: async (sqlite, vars) => {
    const [{ getSeriesRefOrThrow, seriesMeetings }, { seriesMarkdown }] = await Promise.all([import('../../db/queries/meetings.js'), import('../../render/markdown.js')]);
    const series = getSeriesRefOrThrow(sqlite, variable(vars, 'series_id') ?? '', 'list_meetings');
    const { meetings, total } = seriesMeetings(sqlite, series.id, { limit: SERIES_RESOURCE_LIMIT, offset: 0 });
    return seriesMarkdown(series, meetings, total);
  },
};
