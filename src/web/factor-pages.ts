// The second-factor pages' bodies, for the Wallet (under /wallet) and the console (under
// /console), each framed by its own layout: the check (sign-in's second step and the step-up),
// the list with enrolment, TOTP enrolment from a QR, recovery codes shown once. Passkey forms are
// plain forms that passkey.js fills with the browser's answer before sending; without JavaScript
// their button stays off and the TOTP app and the recovery codes still work.
import type { FactorsView } from '../app/second-factors.ts'
import { html, href, type Html } from '../html/template.ts'
import { csrfField, time } from '../html/shell.ts'
import { formatDateTime, texts, type Lang, type WalletKey } from '../i18n/catalogue.ts'

type Page = { lang: Lang; csrf: string }

/** A page's body and the catalogue key of its title; each site frames it in its own layout. */
export type FactorBody = { title: WalletKey; body: Html }
export type FactorPage = Page & { prefix: '/wallet' | '/console' }

function passkeyForm(page: Page, options: { action: string; optionsUrl: string; mode: 'enrol' | 'check'; next?: string; button: string; withName: boolean }): Html {
  const t = texts(page.lang)
  return html`<form method="post" action="${href(options.action)}" class="card" data-passkey="${options.mode}" data-options="${href(options.optionsUrl)}">
  ${csrfField(page.csrf)}
  <input type="hidden" name="response" value="">
  ${options.next !== undefined && html`<input type="hidden" name="next" value="${options.next}">`}
  ${options.withName && html`<label>${t('factorNameLabel')}<input type="text" name="name" maxlength="60" placeholder="${t('passkeyDefaultName')}"></label>`}
  <p class="guidance" data-passkey-unsupported hidden>${t('passkeyUnsupported')}</p>
  <p class="error" data-passkey-error hidden role="alert">${t('passkeyFailed')}</p>
  <button type="submit" disabled data-passkey-button>${options.button}</button>
</form>`
}

const passkeyScript = (prefix: string) => html`<script type="module" src="${href(`${prefix}/assets/passkey.js`)}"></script>`

export function checkBody(page: FactorPage, options: { next: string; passkey: boolean; totp: boolean; signedIn: boolean }): FactorBody {
  const t = texts(page.lang)
  const p = page.prefix
  return { title: 'checkTitle', body: html`
<h1>${t('checkTitle')}</h1>
<p>${t(options.signedIn ? 'checkLeadStepUp' : 'checkLeadSignIn')}</p>
${options.passkey && passkeyForm(page, { action: `${p}/check/passkey`, optionsUrl: `${p}/check/passkey/options`, mode: 'check', next: options.next, button: t('checkPasskey'), withName: false })}
${options.totp && html`<form method="post" action="${href(`${p}/check/totp`)}" class="card">
  ${csrfField(page.csrf)}
  <input type="hidden" name="next" value="${options.next}">
  <label>${t('totpCodeLabel')}<input type="text" name="code" required inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code"></label>
  <button type="submit">${t('confirm')}</button>
</form>`}
<details class="card">
<summary>${t('checkRecoverySummary')}</summary>
<form method="post" action="${href(`${p}/check/recovery`)}">
  ${csrfField(page.csrf)}
  <input type="hidden" name="next" value="${options.next}">
  <label>${t('recoveryCodeLabel')}<input type="text" name="recovery_code" required maxlength="20" autocomplete="off" spellcheck="false"></label>
  <button type="submit">${t('confirm')}</button>
</form>
<p>${t('checkLost')}</p>
</details>
${options.passkey && passkeyScript(p)}` }
}

export function factorsBody(page: FactorPage, view: FactorsView, notice: string | null, fresh: boolean, intro: { on: string; off: string }): FactorBody {
  const t = texts(page.lang)
  const p = page.prefix
  const has = view.factors.length > 0
  const noticeText = notice === 'added' ? t('noticeFactorAdded') : notice === 'removed' ? t('noticeFactorRemoved') : notice === 'removal' ? t('noticeFactorRemoval') : notice === 'canceled' ? t('noticeRemovalCanceled') : null
  const removal = view.removal
  const removalName = removal?.factorId == null ? null : view.factors.find((factor) => factor.id === removal.factorId)?.name ?? ''
  const rows = view.factors.map((factor) => html`<tr>
  <td>${factor.name}</td><td>${t(factor.kind === 'passkey' ? 'kindPasskey' : 'kindTotp')}</td><td>${time(page.lang, factor.created_at)}</td><td>${factor.last_used_at === null ? t('never') : time(page.lang, factor.last_used_at)}</td>
  <td><form method="post" action="${href(`${p}/factors/${factor.id}/remove`)}">${csrfField(page.csrf)}<button type="submit" class="link">${t('removeFactor')}</button></form></td>
</tr>`)
  return { title: 'factorsTitle', body: html`
<h1>${t('factorsTitle')}</h1>
${noticeText !== null && html`<p class="ok" role="status">${noticeText}</p>`}
<p class="${has ? 'ok' : 'guidance'}" data-factors="${has ? 'on' : 'off'}">${has ? intro.on : intro.off}</p>
${removal !== null && html`<div class="guidance" role="status" data-removal="${removal.effectiveAt.toISOString()}">
  <p>${removalName === null ? t('resetPending', { effective: formatDateTime(page.lang, removal.effectiveAt) }) : t('removalPending', { name: removalName, effective: formatDateTime(page.lang, removal.effectiveAt) })}</p>
  <form method="post" action="${href(`${p}/factors/removal/cancel`)}">${csrfField(page.csrf)}<button type="submit">${t('cancelRemoval')}</button></form>
</div>`}
${has && html`<table><thead><tr><th scope="col">${t('factorNameLabel')}</th><th scope="col">${t('factorKind')}</th><th scope="col">${t('created')}</th><th scope="col">${t('factorLastUsed')}</th><th scope="col"></th></tr></thead><tbody>${rows}</tbody></table>
<p>${t('recoveryLeft', { count: String(view.recoveryCodesLeft) })}</p>
<form method="post" action="${href(`${p}/recovery-codes`)}" class="inline">${csrfField(page.csrf)}<button type="submit">${t('renewRecovery')}</button></form>`}
${has && !fresh && html`<p class="guidance">${t('stepUpFirst')} <a href="${href(`${p}/check?next=${p}/factors`)}">${t('stepUpLink')}</a></p>`}
<h2>${t('addPasskey')}</h2>
<p>${t('addPasskeyLead')}</p>
${passkeyForm(page, { action: `${p}/factors/passkey`, optionsUrl: `${p}/factors/passkey/options`, mode: 'enrol', button: t('addPasskey'), withName: true })}
<h2>${t('addTotp')}</h2>
<p>${t('addTotpLead')} <a href="${href(`${p}/factors/totp`)}">${t('addTotpLink')}</a></p>
${passkeyScript(p)}` }
}

export function totpEnrolBody(page: FactorPage, options: { secret: string; needsStepUp: boolean }): FactorBody {
  const t = texts(page.lang)
  const p = page.prefix
  return { title: 'totpTitle', body: html`
<h1>${t('totpTitle')}</h1>
<p>${t('totpLead')}</p>
${options.needsStepUp && html`<p class="guidance">${t('stepUpFirst')} <a href="${href(`${p}/check?next=${p}/factors/totp`)}">${t('stepUpLink')}</a></p>`}
<div class="purchase">
  <img src="${href(`${p}/factors/totp/qr.png`)}" alt="${t('totpQrAlt')}" width="205" height="205">
  <div>
    <label for="totp-secret">${t('totpSecretLabel')}</label>
    <textarea id="totp-secret" class="secret" readonly rows="2" spellcheck="false">${options.secret.replace(/(.{4})/g, '$1 ').trim()}</textarea>
    <form method="post" action="${href(`${p}/factors/totp`)}" class="card">
      ${csrfField(page.csrf)}
      <label>${t('factorNameLabel')}<input type="text" name="name" maxlength="60" placeholder="${t('totpDefaultName')}"></label>
      <label>${t('totpCodeLabel')}<input type="text" name="code" required inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code"></label>
      <button type="submit">${t('addTotp')}</button>
    </form>
  </div>
</div>
<p><a href="${href(`${p}/factors`)}">${t('backToFactors')}</a></p>` }
}

export function recoveryCodesBody(page: FactorPage, codes: string[]): FactorBody {
  const t = texts(page.lang)
  return { title: 'recoveryTitle', body: html`
<h1>${t('recoveryTitle')}</h1>
<p class="guidance">${t('recoveryLead')}</p>
<ol class="codes" data-recovery-codes>${codes.map((code) => html`<li><code>${code}</code></li>`)}</ol>
<p><a href="${href(`${page.prefix}/factors`)}">${t('recoveryDone')}</a></p>` }
}

/** The dashboard's word on second factors: the invitation without one, the state with one. */
export function factorsCard(lang: Lang, count: number): Html {
  const t = texts(lang)
  return count === 0
    ? html`<section aria-labelledby="factors"><h2 id="factors">${t('inviteTitle')}</h2><p class="guidance" data-factors="off">${t('factorsOff')}</p><p><a href="/wallet/factors">${t('inviteLink')}</a></p></section>`
    : html`<section aria-labelledby="factors"><h2 id="factors">${t('factorsTitle')}</h2><p data-factors="on">${t('factorsOn')}</p><p><a href="/wallet/factors">${t('manageFactors')}</a></p></section>`
}
