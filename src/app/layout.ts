import { html, type Html, type Part } from './html.js';

export type Section = 'meetings' | 'proposals' | 'imports' | 'settings' | 'search' | null;

export interface Notice {
  level: 'ok' | 'bad' | 'warn' | 'info';
  text: string;
}

const NAV: { section: Exclude<Section, null>; href: string; label: string }[] = [
  { section: 'meetings', href: '/meetings', label: 'Meetings' },
  { section: 'proposals', href: '/proposals', label: 'Proposals' },
  { section: 'imports', href: '/imports', label: 'Imports' },
  { section: 'settings', href: '/settings', label: 'Settings' },
];

/** A whole page: header with navigation and search, one h1, the body. */
export function page(opts: { title: string; section: Section; body: Part; notice?: Notice | null; q?: string; heading?: Part }): Html {
  const notice = opts.notice;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${opts.title} · Syntheo</title>
<link rel="stylesheet" href="/assets/app.css">
<script src="/assets/app.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
<header class="top">
<a class="brand" href="/meetings">Syntheo</a>
<nav aria-label="Sections"><ul>${NAV.map(
    (n) => html`<li><a href="${n.href}"${n.section === opts.section ? html` aria-current="page"` : ''}>${n.label}</a></li>`,
  )}</ul></nav>
<form role="search" method="get" action="/search"><label class="inline"><span class="skip">Search what was said</span><input type="search" name="q" value="${opts.q ?? ''}" placeholder="Search what was said" aria-label="Search what was said"></label><button type="submit">Search</button></form>
</header>
<main id="main">
<h1>${opts.heading ?? opts.title}</h1>
${notice ? html`<p class="notice ${notice.level}" role="status">${notice.text}</p>` : ''}
${opts.body}
</main>
</body>
</html>
`;
}
