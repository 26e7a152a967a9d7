import { describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.ts';

describe('the browser tests', () => {
  it('fail, naming the missing browser and how to install it, when there is no Chromium', async () => {
    await expect(launchChromium('/nonexistent/chromium')).rejects.toThrow(
      /^No Chromium at \/nonexistent\/chromium: .*apt-get install -y chromium/,
    );
  });
});
