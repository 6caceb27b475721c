// The page shell every page for people shares (the Wallet, the payment page, payment links): one
// stylesheet and one script from /wallet/assets (the CSP forbids inline code), a header with a
// brand and a navigation, and the body. Only the head's extras and the header's parts differ.
import { html, type Html } from './template.ts'

export type Shell = {
  lang: string
  /** The <title>, as text. */
  title: string
  /** The header's left side: the Wallet's name, or the merchant's on a payment page. */
  brand: Html
  nav: Html
  /** What the navigation is called, for screen readers. */
  navLabel: string
  body: Html
  /** More of the head, such as a no-script refresh. */
  head?: Html | null
}

export function shell(page: Shell): string {
  return html`<!doctype html>
<html lang="${page.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}</title>
<link rel="stylesheet" href="/wallet/assets/wallet.css">
<script src="/wallet/assets/wallet.js" defer></script>${page.head}
</head>
<body>
<header class="top">
  ${page.brand}
  <nav aria-label="${page.navLabel}">
    ${page.nav}
  </nav>
</header>
<main>
${page.body}
</main>
</body>
</html>`.toString()
}
