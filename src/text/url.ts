/** A URL as messages and logs may show it: no user:password, no query string or fragment (they can hold keys). */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    // Nothing to hide: the URL as the person wrote it (no trailing slash added).
    if (!u.username && !u.password && !u.search && !u.hash) return url;
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString();
  } catch {
    return '(invalid URL)';
  }
}
