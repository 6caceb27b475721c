// The Wallet's second factors (docs/design.md, "Second factors"): the shared factor routes
// (web/factor-routes.ts) under /wallet, for owners held as `account:<id>`, in the Wallet's layout.
import type { FastifyInstance } from 'fastify'
import { ownerAccount } from '../app/owner-account.ts'
import { resealTotpSecrets } from '../app/second-factors.ts'
import { accountHolder } from '../domain/second-factor.ts'
import { translate } from '../i18n/catalogue.ts'
import { createSealer } from '../secrets/seal.ts'
import { registerFactorRoutes, type FactorGate } from '../web/factor-routes.ts'
import type { WalletDeps } from './deps.ts'
import { layout } from './pages.ts'
import type { WalletPageHelpers } from './withdrawal-routes.ts'

/** The Wallet's owners: their factors under /wallet, held as `account:<id>`. */
export function registerFactorPages(app: FastifyInstance, deps: WalletDeps, helpers: WalletPageHelpers): FactorGate {
  // Once per instance, before it listens: TOTP secrets sealed under a previous OPS_TOKEN only are sealed under the current one.
  app.addHook('onReady', async () => {
    const resealed = await resealTotpSecrets({ store: deps.store, totpSeal: createSealer(deps.opsTokens, 'totp-secret') })
    if (resealed > 0) app.log.info({ resealed }, 'TOTP secrets sealed under the current OPS_TOKEN')
  })
  return registerFactorRoutes(app, {
    prefix: '/wallet',
    deps: { ...deps, baseUrl: deps.config.baseUrl },
    langCookie: 'wallet_lang',
    signedInHolder: (request) => {
      const accountId = helpers.accountOf(request)
      return accountId === null ? null : accountHolder(accountId)
    },
    signIn: (request, holder) => {
      request.session.accountId = Number(holder.slice('account:'.length))
    },
    emailOf: async (holder) => (await ownerAccount(deps, Number(holder.slice('account:'.length)))).email,
    intro: (lang) => ({ on: translate(lang, 'factorsOn'), off: translate(lang, 'factorsOff') }),
    frame: (request, reply, body, isSignedIn) => layout({ ...helpers.pageOf(request, reply), title: body.title, signedIn: isSignedIn }, body.body),
    pageOf: helpers.pageOf,
    field: helpers.field,
    protect: helpers.protect,
    signedIn: helpers.signedIn,
    protectSignedIn: helpers.protectSignedIn,
  })
}
