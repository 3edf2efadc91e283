/** The sign-in page: a small accessible HTML form with no script. */
import type { Response } from 'express';
import { CACHE } from '../../src/http/cache-control.ts';
import { CONTENT_TYPE } from '../../src/http/content-types.ts';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export interface LoginPageOptions {
  /** Where the form posts and signs out (the router's mount path, e.g. `/auth`). */
  readonly base: string;
  /** A safe same-site path to go to after signing in. */
  readonly next: string;
  /** The signed-in username, if any. */
  readonly username?: string;
  /** False when no users file is configured: the page says how to add a user. */
  readonly usersConfigured: boolean;
  /** Why the last sign-in failed (the form is shown again with it). */
  readonly error?: string;
  /** The username that was typed, kept in the form after a failure. */
  readonly typedUsername?: string;
}

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; padding: 2rem 1rem; color: #1b1b1b; background: #fafafa; }
  main { max-width: 24rem; margin: 0 auto; }
  label { display: block; font-weight: 600; margin-top: 1rem; }
  input { box-sizing: border-box; width: 100%; font: inherit; padding: .5rem; border: 1px solid #767676; border-radius: 4px; }
  input:focus, button:focus { outline: 3px solid #1a73e8; outline-offset: 1px; }
  button { margin-top: 1.5rem; font: inherit; padding: .5rem 1.25rem; border: 0; border-radius: 4px; background: #1a56b8; color: #fff; cursor: pointer; }
  code { font-size: .9em; }
  .note { color: #4a4a4a; font-size: .9rem; margin-top: 2rem; }
  .error { border-left: 4px solid #a40e26; background: #fff0f0; color: #7a0b1c; padding: .5rem .75rem; margin-top: 1rem; }
`;

export function renderLoginPage(options: LoginPageOptions): string {
  const base = escapeHtml(options.base);
  const status = options.username
    ? `<p role="status">You are signed in as <strong>${escapeHtml(options.username)}</strong>.</p>
      <form method="post" action="${base}/logout"><button type="submit">Sign out</button></form>
      <h2>Sign in as someone else</h2>`
    : '';
  const noUsers = options.usersConfigured
    ? ''
    : `<p role="alert">No users are configured on this gateway. An operator adds one with
      <code>pkgcat user add &lt;name&gt; --users &lt;file&gt;</code> and serves with <code>--users &lt;file&gt;</code>.</p>`;
  const error = options.error
    ? `<p class="error" role="alert" id="sign-in-error">${escapeHtml(options.error)}</p>`
    : '';
  const invalid = options.error ? ' aria-invalid="true" aria-describedby="sign-in-error"' : '';
  const typed = options.typedUsername ? ` value="${escapeHtml(options.typedUsername)}"` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Sign in · pkgcat</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>Sign in to pkgcat</h1>
${status}${noUsers}${error}
<form method="post" action="${base}/login">
  <input type="hidden" name="next" value="${escapeHtml(options.next)}">
  <label for="username">Username</label>
  <input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="64" required${typed}${invalid}>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required${invalid}>
  <button type="submit">Sign in</button>
</form>
<p class="note">Signing in opens the commit-pinned bundles under <code>/api/pkgs/bundle/&lt;sha&gt;/</code>.
Scripts post <code>{"username": "…", "password": "…"}</code> as JSON to <code>${base}/login</code> and replay the
<code>pkgcat.sid</code> cookie it sets.</p>
</main>
</body>
</html>
`;
}

/**
 * Sends the page: never cached, not framable, no script allowed. After a failed form sign-in it is
 * sent with the failure's status and headers (401, or 429 with Retry-After), and its message.
 */
export function sendLoginPage(res: Response, options: LoginPageOptions, status = 200, headers: Readonly<Record<string, string>> = {}): void {
  const html = renderLoginPage(options);
  res.status(status);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', CONTENT_TYPE.html);
  res.setHeader('Cache-Control', CACHE.auth);
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('Content-Length', String(Buffer.byteLength(html)));
  res.end(html);
}
