// The Wallet's stylesheet and scripts, served from /wallet/assets so the CSP can forbid inline
// code. The scripts only enhance: every page works without them (a passkey needs passkey.js).
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const walletCss = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f4f6f8}
.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.75rem 1rem;background:#0b3d2e;color:#fff}
.top a,.top .link{color:#fff}
.brand{font-weight:700;text-decoration:none}
nav{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center}
main{max-width:52rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.card{background:#fff;border:1px solid #d8dee4;border-radius:8px;padding:1rem;display:grid;gap:.75rem;margin:.5rem 0 1rem}
.card.row{grid-template-columns:1fr auto;align-items:end}
label{display:grid;gap:.25rem;font-weight:600}
label.check{display:flex;gap:.5rem;align-items:flex-start;font-weight:400}
input[type=text],input[type=email],select,textarea{font:inherit;padding:.55rem .6rem;border:1px solid #aab4be;border-radius:6px;width:100%;background:#fff}
textarea{font-family:ui-monospace,monospace;font-size:.8rem;word-break:break-all}
button{font:inherit;font-weight:600;padding:.55rem 1rem;border:0;border-radius:6px;background:#0f7b55;color:#fff;cursor:pointer}
button[disabled]{background:#9aa5b1;cursor:not-allowed}
button.link{background:none;padding:0;font-weight:400;text-decoration:underline;color:LinkText}
form.inline{display:inline}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid #d8dee4;border-radius:8px;font-size:.95rem}
th,td{text-align:left;padding:.5rem;border-bottom:1px solid #e6eaee;vertical-align:top}
td:nth-child(2),td:nth-child(3){font-variant-numeric:tabular-nums}
code{font-size:.85em}
code.id{word-break:break-all;font-size:.75em;color:#57606a}
.guidance{background:#fff8e1;border-left:4px solid #e0a800;padding:.75rem}
.ok{background:#e6f6ee;border-left:4px solid #0f7b55;padding:.75rem}
.error{background:#fdecea;border-left:4px solid #c62828;padding:.75rem}
.purchase{display:grid;gap:1rem}
.purchase img{width:240px;height:240px;background:#fff;border:1px solid #d8dee4;border-radius:8px}
.token{font-family:ui-monospace,monospace;margin:.25rem 0 .5rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem}
dt{font-weight:600}
dd{margin:0}
ul.attempts{margin:0;padding-left:1rem;font-size:.85rem}
ol.codes{display:grid;grid-template-columns:repeat(auto-fill,minmax(10rem,1fr));gap:.25rem 1rem;background:#fff;border:1px solid #d8dee4;border-radius:8px;padding:1rem 1rem 1rem 2.5rem;font-size:1.05rem}
details.card summary{cursor:pointer;font-weight:600}
.secret{font-size:1rem;letter-spacing:.05em;word-break:normal;resize:none}
input[type=month],input[type=date]{font:inherit;padding:.5rem .6rem;border:1px solid #aab4be;border-radius:6px;width:100%;min-width:0;max-width:100%;background:#fff}
.card.period label{min-width:0}
.card.period{grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));align-items:end}
.totals-row{display:grid;gap:.75rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,19rem),1fr))}
.total{background:#fff;border:1px solid #d8dee4;border-radius:8px;padding:.5rem .75rem}
.total h3{margin:0 0 .25rem;font-size:1rem}
dl.totals{grid-template-columns:1fr auto;gap:.1rem .75rem;margin:0}
dl.totals dd{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
ol.lines{list-style:none;margin:0;padding:0;background:#fff;border:1px solid #d8dee4;border-radius:8px}
ol.lines>li{display:flex;justify-content:space-between;gap:.75rem;padding:.5rem .75rem;border-bottom:1px solid #e6eaee}
ol.lines>li:last-child{border-bottom:0}
ol.lines .what{min-width:0;overflow-wrap:anywhere}
ol.lines time,ol.lines small{color:#57606a;font-size:.85rem}
ol.lines .money{text-align:right;font-variant-numeric:tabular-nums;flex:0 1 auto}
ol.lines .money b,ol.lines .money .amount,ol.lines time{white-space:nowrap}
ol.lines a.what{color:inherit;text-decoration:none;flex:1 1 auto}
ol.lines a.what .kind,ol.lines a.what [data-status]{color:LinkText;text-decoration:underline}
.amount.in{color:#0b6b47;font-weight:600}
.amount.out{color:#1b1f24;font-weight:600}
.amount.moved{color:#57606a}
.downloads{margin:1rem 0}
.pay{max-width:28rem;margin:0 auto;display:grid;gap:.5rem;text-align:center}
.pay h1{margin-bottom:0}
.pay .amount{font-size:2.25rem;font-weight:700;margin:0;font-variant-numeric:tabular-nums}
.pay .qr{width:240px;height:240px;margin:0 auto;image-rendering:pixelated;background:#fff;border:1px solid #d8dee4;border-radius:8px}
.pay label,.pay dl,.pay form{text-align:left}
.pay dl{margin:0}
.pay .description{white-space:pre-line;text-align:left}
.pay .receipt h2{margin:0}
.pay p{margin:.25rem 0}
.pay .guidance,.pay .ok,.pay .error{text-align:left}
a.button{display:block;padding:.7rem 1rem;border-radius:6px;background:#0f7b55;color:#fff;font-weight:600;text-decoration:none}
@media (min-width:48rem){.purchase{grid-template-columns:auto 1fr}}
@media (max-width:30rem){.card.row{grid-template-columns:1fr}table{font-size:.85rem}th,td{padding:.35rem}dl.breakdown{grid-template-columns:1fr;gap:0}dl.breakdown dd{margin-bottom:.4rem}}
`

export const walletJs = `
document.querySelectorAll('[data-copy]').forEach(function (button) {
  if (!navigator.clipboard) return
  button.hidden = false
  button.addEventListener('click', function () {
    var field = document.getElementById(button.getAttribute('data-copy'))
    navigator.clipboard.writeText(field.value).then(function () { button.textContent = button.getAttribute('data-copied') })
  })
})
document.querySelectorAll('[data-poll]').forEach(function (output) {
  var poll = function () {
    fetch(output.getAttribute('data-poll'), { headers: { accept: 'application/json' }, credentials: 'same-origin' })
      .then(function (response) { return response.ok ? response.json() : null })
      .then(function (body) {
        if (body && body.status) { output.textContent = body.label; output.setAttribute('data-status', body.status) }
        if (!body || body.status === 'waiting_payment' || body.status === 'pending' || body.status === 'under_review') setTimeout(poll, 2000)
      })
      .catch(function () { setTimeout(poll, 5000) })
  }
  setTimeout(poll, 2000)
})
document.querySelectorAll('[data-countdown]').forEach(function (counter) {
  var left = Number(counter.getAttribute('data-countdown'))
  var tick = function () {
    left -= 1
    if (left <= 0) { location.reload(); return }
    counter.textContent = Math.floor(left / 60) + ':' + String(left % 60).padStart(2, '0')
    setTimeout(tick, 1000)
  }
  setTimeout(tick, 1000)
})
document.querySelectorAll('[data-follow]').forEach(function (status) {
  var follow = function () {
    fetch(status.getAttribute('data-follow'), { headers: { accept: 'application/json' } })
      .then(function (response) { return response.ok ? response.json() : null })
      .then(function (body) {
        if (body && body.phase !== status.getAttribute('data-phase')) location.reload()
        else setTimeout(follow, 3000)
      })
      .catch(function () { setTimeout(follow, 6000) })
  }
  setTimeout(follow, 3000)
})
`

/**
 * @simplewebauthn/browser's ESM build, file by file, as the service serves it under
 * /wallet/assets/webauthn/ (and the console under its own path): no bundler, no third-party
 * origin, and the CSP's script-src 'self' covers it. Read once at start from the installed package.
 */
export function webauthnBrowserFiles(): Map<string, string> {
  const root = dirname(fileURLToPath(import.meta.resolve('@simplewebauthn/browser')))
  const files = new Map<string, string>()
  const walk = (folder: string) => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const path = folder === '' ? entry.name : `${folder}/${entry.name}`
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.js')) files.set(path, readFileSync(join(root, path), 'utf8').replace(/\n\/\/# sourceMappingURL=.*$/m, ''))
    }
  }
  walk('')
  return files
}

/**
 * The passkey forms' script (a module): asks the page's options URL for a challenge, lets the
 * browser create or use the passkey, puts its answer in the form and sends the form. Without it,
 * or without WebAuthn, the passkey button stays off and says why.
 */
export const passkeyJs = (webauthnUrl: string) => `
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '${webauthnUrl}'
document.querySelectorAll('form[data-passkey]').forEach(function (form) {
  var button = form.querySelector('[data-passkey-button]')
  var failed = form.querySelector('[data-passkey-error]')
  if (!browserSupportsWebAuthn()) { form.querySelector('[data-passkey-unsupported]').hidden = false; return }
  button.disabled = false
  form.addEventListener('submit', async function (event) {
    if (form.elements.response.value !== '') return
    event.preventDefault()
    button.disabled = true
    failed.hidden = true
    try {
      var reply = await fetch(form.getAttribute('data-options'), {
        method: 'POST', credentials: 'same-origin',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ _csrf: form.elements._csrf.value }),
      })
      if (!reply.ok) throw new Error('options ' + reply.status)
      var optionsJSON = await reply.json()
      var answer = form.getAttribute('data-passkey') === 'enrol' ? await startRegistration({ optionsJSON: optionsJSON }) : await startAuthentication({ optionsJSON: optionsJSON })
      form.elements.response.value = JSON.stringify(answer)
      form.submit()
    } catch (error) {
      failed.hidden = false
      button.disabled = false
    }
  })
})
`
