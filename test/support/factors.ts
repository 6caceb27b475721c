// What tests of the pages need of second factors: enrol a TOTP app through the pages (its codes
// computed from the secret the page shows, on the service clock), and sign an operator in to the
// console the way operators must now: e-mail code, then the factor (enrolled on first sign-in).
import assert from 'node:assert/strict'
import { Secret, TOTP } from 'otpauth'
import type { Service } from '../../src/service.ts'
import { newestCode, walletClient } from './wallet-client.ts'

type Client = ReturnType<typeof walletClient>

export function totpCode(service: Service, secret: string): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: service.clock.now().getTime() })
}

/** Enrols a TOTP app for the signed-in session under `prefix`; answers the secret and the ten recovery codes. */
export async function enrolTotp(service: Service, client: Client, prefix: '/wallet' | '/console', name = 'Celular'): Promise<{ secret: string; codes: string[] }> {
  const page = await client.get(`${prefix}/factors/totp`)
  assert.equal(page.status, 200, page.html.slice(0, 500))
  const secret = /id="totp-secret"[^>]*>([A-Z2-7 ]+)<\/textarea>/.exec(page.html)![1]!.replace(/ /g, '')
  const enrolled = await client.post(`${prefix}/factors/totp`, { name, code: totpCode(service, secret) })
  assert.equal(enrolled.location, `${prefix}/recovery-codes`, enrolled.html.slice(0, 800))
  const shown = await client.get(`${prefix}/recovery-codes`)
  const codes = [...shown.html.matchAll(/<li><code>([2-9A-Z]{4}-[2-9A-Z]{4}-[2-9A-Z]{4})<\/code><\/li>/g)].map((match) => match[1]!)
  assert.equal(codes.length, 10)
  return { secret, codes }
}

/** Each operator's factor, enrolled at the first sign-in of a test process's service. */
const enrolledOperators = new WeakMap<Service, Map<string, { secret: string; codes: string[] }>>()

/**
 * Checks the session's factor again (a step-up, or sign-in's second step): the app's code when
 * this time step was not taken yet, otherwise one of the recovery codes.
 */
export async function checkFactor(service: Service, client: Client, prefix: '/wallet' | '/console', factor: { secret: string; codes: string[] }, next: string = prefix): Promise<void> {
  await client.get(`${prefix}/check`)
  const byApp = await client.post(`${prefix}/check/totp`, { code: totpCode(service, factor.secret), next })
  if (byApp.status === 303) return
  await client.get(`${prefix}/check`)
  const byCode = await client.post(`${prefix}/check/recovery`, { recovery_code: factor.codes.shift()!, next })
  assert.equal(byCode.status, 303, byCode.html.slice(0, 500))
}

/** An operator signed in to the console with the e-mail code and the second factor (enrolled the first time). */
export async function signedInOperator(service: Service, email: string, remoteAddress?: string): Promise<Client & { factor: { secret: string; codes: string[] } }> {
  const client = walletClient(service, remoteAddress)
  await client.get('/console')
  const asked = await client.post('/console/sign-in', { email })
  assert.equal(asked.status, 303)
  await client.get(asked.location!)
  const entered = await client.post('/console/code', { email, code: await newestCode(service, email) })
  assert.equal(entered.status, 303, entered.html.slice(0, 300))
  const known = enrolledOperators.get(service) ?? new Map<string, { secret: string; codes: string[] }>()
  enrolledOperators.set(service, known)
  const key = email.trim().toLowerCase()
  let factor = known.get(key)
  if (entered.location === '/console/factors') {
    factor = await enrolTotp(service, client, '/console', 'Operator app')
    known.set(key, factor)
  } else {
    assert.equal(entered.location, '/console/check')
    assert.ok(factor, `${email} has a factor this test did not enrol`)
    await checkFactor(service, client, '/console', factor)
  }
  return Object.assign(client, { factor: factor! })
}
