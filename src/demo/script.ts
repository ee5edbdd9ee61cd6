// The demo's spoken content: realistic meeting dialogue, turned into timed words by dataset.ts.

export type Turn = [speaker: string, text: string];

export const PEOPLE = {
  alice: { name: 'Alice Martin', email: 'alice@acme.test', role: 'Product manager' },
  bob: { name: 'Bob Chen', email: 'bob@acme.test', role: 'Engineering lead' },
  chloe: { name: 'Chloé Dubois', email: 'chloe@acme.test', role: 'Designer' },
  dan: { name: 'Dan Okafor', email: 'dan@acme.test', role: 'Recruiter' },
  eva: { name: 'Eva Lindqvist', email: 'eva@acme.test', role: 'User researcher' },
} as const;

/** One weekly sync per week; `week` varies the details so the series reads like a history. */
export function weeklySync(week: number): Turn[] {
  const beta = [12, 27, 41, 58, 73][week % 5];
  const crash = ['the login screen', 'the export dialog', 'offline sync', 'the calendar import', 'push notifications'][week % 5];
  return [
    ['Alice', `Good morning everyone, let's get started. This is our weekly product sync, week ${week + 1} of the launch plan. I want to cover the beta numbers, the crash reports, and the budget review.`],
    ['Bob', `Sure. On the beta, we now have ${beta} active teams, up from last week. Retention after the first week is holding at about sixty percent, which is better than we planned for.`],
    ['Chloé', `That matches what I see in the interviews. People like the meeting timeline, but several of them got lost in the settings page, so I am redesigning the navigation there.`],
    ['Alice', `Good. Bob, what about stability? I saw a spike in crash reports on Tuesday.`],
    ['Bob', `Yes, most of them come from ${crash}. We found the cause, a race between two background jobs writing the same record. The fix is in review and should ship tomorrow.`],
    ['Alice', `Can we add a test that reproduces it, so it does not come back after the next refactor?`],
    ['Bob', `Already written. It fails on the old code and passes with the fix. I will also add a dashboard alert when the crash rate goes above one percent of sessions.`],
    ['Chloé', `One more thing from design: the onboarding checklist needs final copy. I drafted it, but marketing has not reviewed it yet.`],
    ['Alice', `I will chase marketing today. Now the budget review. Finance asked to move it, so the budget review moves to Thursday at ten. Please bring your estimates for the next quarter.`],
    ['Bob', `For engineering the main cost is the transcription servers. If usage keeps growing like this we need two more machines before the public launch.`],
    ['Alice', `Write that down with numbers, cost per team per month, and we will defend it on Thursday. Anything else before we close?`],
    ['Chloé', `Just a reminder that the usability test with the pilot customer is next Monday. I need one engineer in the room to answer technical questions.`],
    ['Bob', `I can join for the first hour.`],
    ['Alice', `Perfect. To sum up: the crash fix ships tomorrow with its test, I chase marketing for the onboarding copy, Bob prepares the server estimate for Thursday, and Bob joins the usability test on Monday. Thanks everyone, same time next week.`],
  ];
}

export const LAUNCH_PLANNING: Turn[] = [
  ['Alice', 'Thanks for joining. The goal today is to agree on the launch date, the pricing tiers and who talks to the press. We have forty minutes.'],
  ['Bob', 'From the engineering side the release candidate is ready on the fourteenth. I would like one full week of soak testing before we open sign-ups to everyone.'],
  ['Alice', 'So a public launch on the twenty-second at the earliest. Chloé, is the landing page ready by then?'],
  ['Chloé', 'The landing page is designed. The pricing section is blocked until we decide the tiers, because the layout depends on whether we show two or three plans.'],
  ['Alice', 'Let us decide it now. I propose three plans: a free plan for individuals with ten hours of transcription per month, a team plan at twelve dollars per seat, and an enterprise plan with single sign-on and a data processing agreement.'],
  ['Bob', 'Twelve dollars works if the average team stays under forty hours of audio per month. Above that our transcription cost eats the margin. Can we cap the team plan at fifty hours per seat?'],
  ['Alice', 'A cap feels hostile. What if we keep it unlimited but review heavy users every quarter? Very few teams record that much.'],
  ['Bob', 'Fine for now, but I want a usage report per team so we can see it coming.'],
  ['Chloé', 'Three plans then. I will finish the pricing section this week and send it for review on Friday.'],
  ['Alice', 'Great. For the press, I will handle the launch announcement and the two interviews. Bob, can you write the technical blog post about local-first storage? It is our main difference.'],
  ['Bob', 'Yes. I will explain why meeting data stays on the device and how the assistant integration works without sending transcripts to our servers.'],
  ['Alice', 'Last point, the risks. If the soak test finds a blocking bug, we move the launch by one week, not more. Does everyone agree?'],
  ['Chloé', 'Agreed.'],
  ['Bob', 'Agreed. I will report the soak test results every morning in the launch channel.'],
  ['Alice', 'Then the plan is: release candidate on the fourteenth, soak test for a week, public launch on the twenty-second, three pricing plans, and the blog post from Bob. Thank you both.'],
];

export const INTERVIEW_DEBRIEF: Turn[] = [
  ['Dan', 'Thanks for making time. We interviewed Priya for the senior backend role yesterday. Bob, you ran the system design round. What is your take?'],
  ['Bob', 'Strong. She designed a job queue for audio processing with leases and retries, and she brought up idempotency keys before I asked. She also knew when a single SQLite file is enough and when it is not.'],
  ['Dan', 'Any concerns?'],
  ['Bob', 'Her experience with TypeScript is mostly on the front end. On the backend she has used Go and Python. I do not think it is a problem, the concepts transfer, but she would need a few weeks to learn our code base.'],
  ['Dan', 'The culture interview went well too. She asked good questions about how we decide what to build, and she was honest about a project that failed at her last company and what she learned from it.'],
  ['Bob', 'That matters to me. I would rather hire someone who can explain a failure than someone who has never shipped anything risky.'],
  ['Dan', 'Compensation expectations are within the band, at the upper end. She has another offer and wants an answer by Friday.'],
  ['Bob', 'Then let us not lose her. I vote hire. I am happy to be her onboarding buddy for the first month.'],
  ['Dan', 'Good. I will write the offer today, send it to Alice for approval, and call Priya tomorrow morning. I will also ask for two references, as usual.'],
  ['Bob', 'Please mention the on-call rotation in the offer call. Some people find out late and feel misled.'],
  ['Dan', 'Noted. I will describe the rotation, one week in six, with a day off after a busy week. Thanks Bob, I will keep you posted.'],
];

export const RESEARCH_READOUT: Turn[] = [
  ['Eva', 'This is the readout of the research round on meeting notes. We talked to twelve people in five companies, mostly product managers and engineering leads.'],
  ['Eva', 'The first finding: nobody reads full transcripts. People search them. They remember a fragment, like who said something about the budget, and they want to jump to that moment.'],
  ['Alice', 'That matches my own use. What do they do today when they cannot find it?'],
  ['Eva', 'They ask a colleague, or they give up. Two people said they keep a private document where they copy decisions by hand after each meeting, because the notes tool is too slow to search.'],
  ['Chloé', 'So search across meetings is the feature, not the summary.'],
  ['Eva', 'Both, but in different moments. Summaries are read right after the meeting, usually once. Search is used weeks later, and the question is almost always when did we decide this and who was there.'],
  ['Alice', 'Did anyone mention assistants, like asking a chat assistant about past meetings?'],
  ['Eva', 'Four of the twelve already do it with a copy and paste of the transcript. They want the assistant to read the meetings directly, but they do not want their recordings in somebody else’s cloud. Privacy came up in every interview with a legal or health company.'],
  ['Chloé', 'That is a strong argument for keeping everything local and letting the assistant propose changes instead of editing.'],
  ['Eva', 'Yes. One participant said, I want the assistant to suggest, and I want to be the one who presses the button. That was almost word for word what three others said.'],
  ['Alice', 'Great work, Eva. Let us turn these findings into three bets for next quarter: search across meetings, assistant access with review, and faster summaries. I will draft them and share the document on Wednesday.'],
];

export const CUSTOMER_CALL: Turn[] = [
  ['Alice', 'Thanks for your time today. You have been using the pilot for three weeks, and we would love to hear what works and what does not.'],
  ['Guest', 'Overall it is good. The transcripts are accurate for English, less so when people switch to French in the middle of a call, which happens a lot in our team.'],
  ['Alice', 'That is useful. Do you set the language by hand today?'],
  ['Guest', 'No, we leave it on automatic. Maybe a way to set the language per meeting would help. The bigger issue is exporting. Our legal team wants a full record of some meetings in a format they can archive.'],
  ['Alice', 'The export gives you the full record as JSON, and a Markdown version for people. Would Markdown work for your archive?'],
  ['Guest', 'Markdown is fine if it has the timestamps and the speakers. And we would like the action items to come out as a checklist we can paste into our tracker.'],
  ['Alice', 'Both are there already, but clearly not easy to find. I will send you a short guide this week, and I am writing down the language setting as a request.'],
  ['Guest', 'Great. One last thing, the import of long recordings. We recorded a two hour workshop and it took a while, but it worked. A progress indicator would make it less stressful.'],
  ['Alice', 'Noted. Thank you, this was really helpful. I will follow up by email with the guide and a summary of this call.'],
];
