// What the Wallet's browser tests share: Debian's Chromium driven by playwright-core (headless,
// no sandbox: tests run as root), the rule that skips them, and screenshots at a phone's and a
// desktop's width.
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { skipOnSecondDatabase } from './harness.ts'

// Debian's chromium-headless-shell: the same Chromium build as Debian's chromium package, in its
// headless shell, which is what Playwright itself runs for headless pages. The full browser's
// headless mode cost the browser suites half as much CPU again (measured: the Wallet's
// withdrawals 33.6–34.2 → 21.7–24.0 s, the Wallet 24.1 → 17.5 s, the console 14.0 → 11.3 s).
// A developer machine with only the full browser runs them in that.
export const CHROMIUM = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((path) => existsSync(path)) ?? '/usr/bin/chromium-headless-shell'

/** CI installs Chromium (.ci/run) and must run these; a developer machine without it skips them. */
export const skipWithoutChromium = skipOnSecondDatabase || (!existsSync(CHROMIUM) && process.env.CI !== 'true' ? "Debian's Chromium is not installed (apt-get install chromium-headless-shell)" : false)

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
}

/**
 * Screenshots at 375 px (phone) and 1280 px (desktop) into test-output/screenshots/<folder>/, of
 * the whole page unless `fullPage` is false: for a page dozens of screens long (/docs), where a
 * full-page pair took Chromium 3–4 s and 6 MB of PNG, and the screen in view is what the test is about.
 */
export function screenshotsIn(folder: string): (page: Page, name: string, options?: { fullPage?: boolean }) => Promise<void> {
  const shots = join('test-output', 'screenshots', folder)
  mkdirSync(shots, { recursive: true })
  return async (page, name, { fullPage = true } = {}) => {
    for (const [device, width] of [['phone', 375], ['desktop', 1280]] as const) {
      await page.setViewportSize({ width, height: 800 })
      await page.screenshot({ path: join(shots, `${name}-${device}.png`), fullPage })
    }
  }
}
