import { describe, expect, it } from 'vitest';
import { QueryUriTemplate } from '../../src/mcp/uri-template.js';

describe('QueryUriTemplate', () => {
  const transcript = new QueryUriTemplate('syntheo://meetings/{meeting_id}/transcript{?offset,limit}');
  const meeting = new QueryUriTemplate('syntheo://meetings/{meeting_id}');

  it('keeps the RFC 6570 form for resources/templates/list', () => {
    expect(transcript.toString()).toBe('syntheo://meetings/{meeting_id}/transcript{?offset,limit}');
    expect(transcript.variableNames).toEqual(['meeting_id', 'offset', 'limit']);
  });

  it('matches either, both or neither query variable, in any order, among others', () => {
    const base = 'syntheo://meetings/mtg_1/transcript';
    expect(transcript.match(base)).toEqual({ meeting_id: 'mtg_1' });
    expect(transcript.match(`${base}?offset=5`)).toEqual({ meeting_id: 'mtg_1', offset: '5' });
    expect(transcript.match(`${base}?limit=9`)).toEqual({ meeting_id: 'mtg_1', limit: '9' });
    expect(transcript.match(`${base}?limit=9&offset=5`)).toEqual({ meeting_id: 'mtg_1', offset: '5', limit: '9' });
    expect(transcript.match(`${base}?x=1&offset=5&y=2#top`)).toEqual({ meeting_id: 'mtg_1', offset: '5' });
  });

  it('takes the last value of a repeated query key', () => {
    const base = 'syntheo://meetings/mtg_1/transcript';
    expect(transcript.match(`${base}?offset=1&offset=5`)).toEqual({ meeting_id: 'mtg_1', offset: '5' });
    expect(transcript.match(`${base}?offset=1&limit=2&offset=&limit=9`)).toEqual({ meeting_id: 'mtg_1', offset: '', limit: '9' });
  });

  it('percent-decodes path and query values', () => {
    expect(transcript.match('syntheo://meetings/mtg%5F1/transcript?offset=%31%32')).toEqual({ meeting_id: 'mtg_1', offset: '12' });
    expect(meeting.match('syntheo://meetings/a%20b')).toEqual({ meeting_id: 'a b' });
    expect(meeting.match('syntheo://meetings/%E0%A4%A')).toBeNull();
  });

  it('does not let one template swallow another', () => {
    expect(meeting.match('syntheo://meetings/mtg_1/transcript')).toBeNull();
    expect(transcript.match('syntheo://meetings/mtg_1')).toBeNull();
    expect(meeting.match('syntheo://meetings/')).toBeNull();
    expect(meeting.match('syntheo://series/ser_1')).toBeNull();
  });
});
