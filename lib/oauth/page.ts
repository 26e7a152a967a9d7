import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { SCOPES, scopeDescriptions, type Scope } from '../model/oauth.ts';

/**
 * The authorization page (`/oauth/authorize`): plain HTML, no script, every value escaped. The
 * person pastes their API token once, sees the client's name and each scope asked for (and may
 * untick some), and approves or denies.
 *
 * CSRF: the form carries a random value that must equal the one in a `SameSite=Strict`,
 * `HttpOnly` cookie set with the page (double submit), so that no other site can post an approval.
 * The page may not be framed (clickjacking), keeps no referrer, and may only post to itself.
 */

export const CSRF_COOKIE = 'sts_oauth_csrf';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export const newCsrfValue = () => randomBytes(32).toString('base64url');

/** The form's CSRF value matches its cookie (compared in constant time). */
export function csrfMatches(cookieHeader: string | undefined, formValue: string | undefined): boolean {
  if (!formValue || !/^[A-Za-z0-9_-]{43}$/.test(formValue)) return false;
  const cookie = (cookieHeader ?? '')
    .split(';')
    .map((c) => c.trim().split('='))
    .find(([name]) => name === CSRF_COOKIE)?.[1];
  if (!cookie) return false;
  const digest = (v: string) => createHash('sha256').update(v).digest();
  return timingSafeEqual(digest(cookie), digest(formValue));
}

/** The cookie that goes with the page's form (Secure over https; the path of the page only). */
export function csrfCookie(value: string, secure: boolean): string {
  return `${CSRF_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=900${secure ? '; Secure' : ''}`;
}

export const pageHeaders = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

const STYLE = `body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}label{display:block;margin:.6rem 0}input[type=password]{width:100%;padding:.4rem;font:inherit}
.error{color:#a00}.scopes{border:1px solid #ccc;padding:.4rem 1rem;margin:1rem 0}button{font:inherit;padding:.4rem 1.2rem;margin-right:.6rem}`;

function shell(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** A page that only says what went wrong (a request that cannot safely go back to its client). */
export const errorPage = (message: string) =>
  shell('Cannot connect', `<h1>This connection cannot be approved</h1><p class="error" role="alert">${escapeHtml(message)}</p>`);

/** The approval form. `params` go back as hidden fields; `error` is the last attempt's refusal. */
export function approvalPage(input: {
  clientName: string;
  redirectUri: string;
  scopes: readonly Scope[];
  params: Record<string, string | undefined>;
  csrf: string;
  error?: string;
}): string {
  const hidden = Object.entries(input.params)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  const scopes = SCOPES.filter((s) => input.scopes.includes(s))
    .map(
      (s) =>
        `<label><input type="checkbox" name="granted" value="${s}" checked> <strong>${s}</strong>: ${escapeHtml(scopeDescriptions[s])}</label>`,
    )
    .join('');
  const host = (() => {
    try {
      return new URL(input.redirectUri).host;
    } catch {
      return input.redirectUri;
    }
  })();
  return shell(
    'Connect to Sprint Ticketing Service',
    `<h1><span id="client-name">${escapeHtml(input.clientName)}</span> wants to use Sprint Ticketing Service as you</h1>
<p>It will return to <code>${escapeHtml(host)}</code>. It will be able to act through the MCP server only, with the permissions you keep below.</p>
${input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
<form method="post" action="authorize">${hidden}<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
<div class="scopes">${scopes}</div>
<label>Your API token (it is checked once and not shared with the application)
<input type="password" name="api_token" autocomplete="off" spellcheck="false"></label>
<p><button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny">Deny</button></p>
</form>`,
  );
}
