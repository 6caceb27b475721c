// Who each route is for, as the OpenAPI documents group them (http/openapi.ts cuts one document
// per audience): every wing tags its routes here, so the sandbox's routes are documented without
// leaning on the API's own modules.
import type { FastifyInstance } from 'fastify'

export type Audience = 'merchant' | 'public' | 'operator' | 'provider' | 'sandbox' | 'health'

export const audiences: Record<Audience, { description: string; security: Array<Record<string, string[]>> }> = {
  merchant: { description: 'The merchant API: charges, balances, webhook deliveries. Authenticated with `X-API-Token`.', security: [{ apiToken: [] }] },
  public: { description: 'Public resources linked from API answers (the QR image); no authentication.', security: [] },
  operator: { description: 'Support operations (held payments, tokens, blocks, quotes); `Authorization: Bearer <OPS_TOKEN>`.', security: [{ operator: [] }] },
  provider: { description: "The payment provider's webhooks; `Authorization: Basic <secret as registered>`.", security: [{ provider: [] }] },
  sandbox: { description: 'Sandbox controls (sandbox mode only): accounts, tokens, paying a QR, the clock, quotes, MED.', security: [] },
  health: { description: 'Liveness and readiness for load balancers; no authentication.', security: [] },
}

/** Every route the plugin registers after this call is documented as this audience's. */
export function documentAudience(app: FastifyInstance, audience: Audience): void {
  app.addHook('onRoute', (route) => {
    route.schema = { tags: [audience], security: audiences[audience].security, ...route.schema } as typeof route.schema
  })
}
