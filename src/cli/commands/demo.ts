import type { CommandSpec } from '../framework.js';
import { plural } from '../text.js';

export const commands: CommandSpec[] = [
  {
    name: 'demo',
    summary: 'Fill the database with a realistic sample',
    description:
      'Fill the database with a realistic sample: ten meetings over the last five weeks in nested folders\n(plus empty ones), a weekly series, transcripts with speakers and word timings, summaries, participants,\naction items and one pending proposal. Running it again replaces the same meetings: nothing is duplicated.',
    examples: ['syntheo demo', 'syntheo demo --db /tmp/try.db && syntheo --db /tmp/try.db meetings list'],
    async run(ctx) {
      const store = await ctx.store({ create: true });
      const { loadDemo } = await import('../../demo/dataset.js');
      const result = await loadDemo(store);
      return {
        data: { database: store.location, ...result },
        text: [
          `Demo data in ${store.location}:`,
          `  ${plural(result.meetings, 'meeting')}, ${plural(result.words, 'transcript word')}, ${plural(result.folders.length, 'folder')}, series ${result.series}`,
          `  pending proposal ${result.proposal} (review it with \`syntheo proposals show ${result.proposal}\`)`,
          '',
          'Next: `syntheo meetings list`, or connect an assistant to `syntheo mcp` (see the README).',
        ].join('\n'),
      };
    },
  },
];
