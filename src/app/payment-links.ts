// Payment links (docs/payment-pages.md): an owner publishes one (Wallet or API); a payer opens
// it at /l/{slug}, gives full name and CPF/CNPJ, and only then is an ordinary charge made, whose
// payment page the payer is sent to. Viewing a link never asks the provider for anything.
import { randomBytes } from 'node:crypto'
import type { Clock } from '../clock.ts'
import type { ChargeCreated, PaymentLinkList, PaymentLinkRecord } from '../contract/api.ts'
import { DomainError } from '../domain/errors.ts'
import { chosenAmountCents, linkClosedReason, parsePaymentLink, type PaymentLinkInput } from '../domain/payment-link.ts'
import { defaultPayerLadder, LIMIT_WITHOUT_EUID_CENTS } from '../domain/payer-limits.ts'
import type { Currency } from '../domain/money.ts'
import { parseTaxNumber } from '../domain/tax-number.ts'
import { eulenPublishedLimits } from '../provider/rate-limits.ts'
import type { LinkSales } from '../store/payment-links.ts'
import type { PaymentLink } from '../store/schema.ts'
import type { Store } from '../store/store.ts'
import { randomHexSource } from '../random-hex.ts'
import { createCharge, type CreateChargeDeps } from './create-charge.ts'
import { keysetPage } from './page-cursor.ts'

export type PaymentLinkDeps = { store: Store; clock: Clock; baseUrl: string }

const newLinkId = randomHexSource(12)
/** The public address: 16 random bytes (128 bits), unguessable, 22 URL-safe characters. */
const newSlug = () => randomBytes(16).toString('base64url')
export const slugPattern = /^[A-Za-z0-9_-]{22}$/

/** Charges a link may make a minute, and at once, for the whole deployment: a link shared widely still cannot spend the provider's limits. */
export const LINK_CHARGES = { perMinute: 10, burst: 20 }
/**
 * The provider's /deposit tokens links leave to merchants' own charges: below this many, a
 * payer is asked to try again in a moment rather than drawing the last of them.
 */
export const LINK_DEPOSIT_RESERVE = 10

const noSales: LinkSales = { paid: 0, paidCents: 0, open: 0, charges: 0 }

function record(deps: PaymentLinkDeps, link: PaymentLink, sales: LinkSales = noSales): PaymentLinkRecord {
  return {
    id: link.id,
    url: `${deps.baseUrl}/l/${link.slug}`,
    title: link.title,
    description: link.description,
    amount_cents: link.amount_cents,
    min_cents: link.min_cents,
    max_cents: link.max_cents,
    swap_to: link.currency,
    expires_at: link.expires_at?.toISOString() ?? null,
    max_uses: link.max_uses,
    active: link.active,
    notify_sales: link.notify_sales,
    created_at: link.created_at.toISOString(),
    sales: { paid: sales.paid, paid_cents: sales.paidCents, open: sales.open },
  }
}

/** A link's charges name the owner's EUID as their merchant: an account sells through links once its identity purchase gave it one. */
export async function maySellThroughLinks(deps: { store: Store }, accountId: number): Promise<boolean> {
  return (await deps.store.accounts.findById(accountId))?.euid != null
}

export async function createPaymentLink(deps: PaymentLinkDeps, accountId: number, input: PaymentLinkInput): Promise<PaymentLinkRecord> {
  const now = deps.clock.now()
  const terms = parsePaymentLink(input, now)
  const link = await deps.store.paymentLinks.create({
    id: `pl_${newLinkId()}`, slug: newSlug(), account_id: accountId, title: terms.title, description: terms.description,
    amount_cents: terms.amountCents, min_cents: terms.minCents, max_cents: terms.maxCents, currency: terms.currency,
    expires_at: terms.expiresAt, max_uses: terms.maxUses, notify_sales: terms.notifySales, created_at: now,
  })
  return record(deps, link)
}

const isPaymentLinkId = (id: string) => /^pl_[0-9a-f]{24}$/.test(id)

async function ownLink(deps: PaymentLinkDeps, accountId: number, id: string): Promise<PaymentLink> {
  const link = isPaymentLinkId(id) ? await deps.store.paymentLinks.findForAccount(id, accountId) : undefined
  if (!link) throw new DomainError('payment_link_not_found', { param: 'id' })
  return link
}

export async function getPaymentLink(deps: PaymentLinkDeps, accountId: number, id: string): Promise<PaymentLinkRecord> {
  const link = await ownLink(deps, accountId, id)
  return record(deps, link, (await deps.store.paymentLinks.sales([link.id], deps.clock.now())).get(link.id))
}

/** One page of the account's links, newest first, each with its sales, and the cursor of the next page. */
export async function listPaymentLinks(deps: PaymentLinkDeps, accountId: number, page: { limit?: number | undefined; cursor?: string | undefined } = {}): Promise<PaymentLinkList> {
  const { rows: links, nextCursor } = await keysetPage({ cursor: page.cursor, limit: page.limit ?? 20, isId: isPaymentLinkId }, (before, limit) => deps.store.paymentLinks.listForAccount(accountId, { before, limit }))
  const sales = await deps.store.paymentLinks.sales(links.map((link) => link.id), deps.clock.now())
  return { payment_links: links.map((link) => record(deps, link, sales.get(link.id))), next_cursor: nextCursor }
}

/** The owner's e-mail on each sale through this link, on or off. */
export async function setPaymentLinkNotices(deps: PaymentLinkDeps, accountId: number, id: string, on: boolean): Promise<PaymentLinkRecord> {
  await ownLink(deps, accountId, id)
  const link = (await deps.store.paymentLinks.setNotifySales(id, accountId, on))!
  return record(deps, link, (await deps.store.paymentLinks.sales([link.id], deps.clock.now())).get(link.id))
}

/** A link of the account with its newest 100 charges (the Wallet's view of it). */
export async function paymentLinkWithCharges(deps: PaymentLinkDeps, accountId: number, id: string) {
  const link = await getPaymentLink(deps, accountId, id)
  const charges = await deps.store.paymentLinks.chargesOf(id, 100)
  return {
    link,
    charges: charges.map((charge) => ({
      id: charge.id, status: charge.status, valueCents: charge.value_cents, paidCents: charge.paid_cents, createdAt: charge.created_at, payerName: charge.payer_name ?? charge.informed_payer_name,
    })),
  }
}

/** Deactivating an inactive link answers the same; QRs already made stay payable until they expire. */
export async function deactivatePaymentLink(deps: PaymentLinkDeps, accountId: number, id: string): Promise<PaymentLinkRecord> {
  await ownLink(deps, accountId, id)
  const link = (await deps.store.paymentLinks.deactivate(id, accountId, deps.clock.now()))!
  return record(deps, link, (await deps.store.paymentLinks.sales([link.id], deps.clock.now())).get(link.id))
}

export type LinkView = {
  slug: string
  title: string
  description: string | null
  merchantName: string | null
  amountCents: number | null
  minCents: number | null
  maxCents: number | null
  currency: Currency
  closed: 'inactive' | 'expired' | 'sold_out' | null
  /** What a payer the provider does not know yet may pay in one Pix, and what one it knows starts at. */
  newPayerLimitCents: number
  knownPayerLimitCents: number
}

async function openLink(store: Store, slug: string) {
  const link = slugPattern.test(slug) ? await store.paymentLinks.findBySlug(slug) : undefined
  if (!link) throw new DomainError('payment_link_not_found', { param: 'slug' })
  return link
}

async function closedReason(store: Store, link: PaymentLink, now: Date) {
  const sales = link.max_uses === null ? noSales : ((await store.paymentLinks.sales([link.id], now)).get(link.id) ?? noSales)
  return linkClosedReason({ active: link.active, expiresAt: link.expires_at, maxUses: link.max_uses }, sales.paid + sales.open, now)
}

/** What the public page shows: reads only, never the provider. */
export async function linkPage(deps: { store: Store; clock: Clock; payerLadder?: CreateChargeDeps['payerLadder'] }, slug: string): Promise<LinkView> {
  const link = await openLink(deps.store, slug)
  return {
    slug: link.slug, title: link.title, description: link.description, merchantName: link.display_name,
    amountCents: link.amount_cents, minCents: link.min_cents, maxCents: link.max_cents, currency: link.currency,
    closed: await closedReason(deps.store, link, deps.clock.now()),
    newPayerLimitCents: LIMIT_WITHOUT_EUID_CENTS,
    knownPayerLimitCents: (deps.payerLadder ?? defaultPayerLadder)[0]?.limitCents ?? LIMIT_WITHOUT_EUID_CENTS,
  }
}

export type LinkPurchase = { slug: string; payerName: string; taxNumber: string; amount: string | undefined }

/**
 * "Gerar Pix": the one moment a link asks the provider for a QR. The link must still sell, the
 * amount be its own or within its bounds, and the deployment's share of the provider's /deposit
 * limit not nearly spent; then an ordinary charge is made for the owner, paid by this payer,
 * naming the link in its metadata. A payer who already paid a charge made with this CPF/CNPJ has
 * the EUID the provider gave them, and the ladder's limits; anyone else, R$ 10,00.
 */
export async function buyFromLink(deps: CreateChargeDeps, purchase: LinkPurchase): Promise<ChargeCreated> {
  const link = await openLink(deps.store, purchase.slug)
  const now = deps.clock.now()
  const closed = await closedReason(deps.store, link, now)
  if (closed !== null) throw new DomainError('payment_link_closed', { param: 'slug' })
  if (link.owner_euid === null) throw new DomainError('payment_link_closed', { param: 'slug' })
  const valueCents = chosenAmountCents({ amountCents: link.amount_cents, minCents: link.min_cents, maxCents: link.max_cents }, purchase.amount)

  // Parsed before anything is spent: a typo costs no token of the link's or the provider's.
  const taxNumber = parseTaxNumber(purchase.taxNumber)
  if (!taxNumber) throw new DomainError('tax_number_invalid', { param: 'tax_number' })
  const knownEuid = await deps.store.paymentLinks.knownEuidOf(taxNumber.value)
  if (knownEuid === null && valueCents > LIMIT_WITHOUT_EUID_CENTS) throw new DomainError('euid_required', { param: 'amount' })

  if (await deps.store.rateBuckets.available('provider:deposit', eulenPublishedLimits.deposit) < LINK_DEPOSIT_RESERVE) {
    throw new DomainError('provider_unavailable', { retryAfterSeconds: 30 })
  }
  const wait = await deps.store.rateBuckets.take(`link:${link.id}`, LINK_CHARGES)
  if (wait > 0) throw new DomainError('rate_limited', { retryAfterSeconds: wait })

  return createCharge(deps, {
    merchant: { accountId: link.account_id, merchantId: link.owner_euid },
    paymentLinkId: link.id,
    body: {
      value: (valueCents / 100).toFixed(2),
      email: link.owner_email,
      swap_to: link.currency,
      ...(knownEuid !== null ? { euid: knownEuid } : { tax_number: taxNumber.value }),
      payer_name: purchase.payerName,
      metadata: { payment_link_id: link.id },
    },
  })
}
