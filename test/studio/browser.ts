/**
 * Debian's Chromium driven by playwright-core (no browser download). Without /usr/bin/chromium the browser tests
 * skip with a message, unless TOOLENV_REQUIRE_BROWSER=1 (CI), where they fail.
 */
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';

export const CHROMIUM = process.env.TOOLENV_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or undefined when they can; throws where a browser is required. */
export function browserMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const install = "install Debian's package (apt-get install chromium)";
  const why = `no Chromium at ${CHROMIUM}: ${install} to run the browser tests`;
  if (process.env.TOOLENV_REQUIRE_BROWSER === '1') throw new Error(`${why} (TOOLENV_REQUIRE_BROWSER=1)`);
  return why;
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    // A fresh profile each launch (playwright's default). The closed network refuses the background connections
    // Chromium makes on its own; without these flags it stalls on them.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Every console error and uncaught page error, to assert none happened. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
  return errors;
}
