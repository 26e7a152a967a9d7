import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's `chromium` package (`apt-get install chromium`; `.ci/run` installs it when missing). */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Flags for a quiet, self-contained headless run: no sandbox (CI runs as root), no GPU, and none of
 * Chromium's own background traffic (updates, sync, QUIC probes), so that every request the test
 * observes is the page's.
 */
export const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Launches headless Chromium (`executablePath`, Debian's by default) through playwright-core with
 * a fresh profile, removed on `close`. Throws, never skips, when there is no browser there: the
 * browser tests are part of `npm test`.
 */
export async function launchChromium(
  executablePath = chromiumPath,
): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  try {
    accessSync(executablePath, constants.X_OK);
  } catch {
    throw new Error(
      `No Chromium at ${executablePath}: the browser tests need Debian's chromium package ` +
        '(as root: apt-get update && apt-get install -y chromium; `bash .ci/run` installs it), ' +
        'or CHROMIUM_PATH naming another Chromium.',
    );
  }
  const profile = mkdtempSync(join(tmpdir(), 'sts-chromium-'));
  try {
    // Playwright takes the profile folder as an argument of its own (it refuses --user-data-dir).
    const context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: chromiumFlags,
      viewport: { width: 1280, height: 900 },
    });
    return {
      context,
      close: async () => {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
}
