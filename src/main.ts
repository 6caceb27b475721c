// Composition root: read the config, start the service, listen, stop cleanly on SIGTERM/SIGINT.
import { readFileSync } from 'node:fs'
import { ConfigError, loadConfig, productionWarnings } from './config.ts'
import { collectWhenQuiet } from './quiet-gc.ts'
import { ensureDemoMerchant } from './sandbox/demo.ts'
import { DataDirLockedError } from './store/database.ts'
import { startService } from './service.ts'

/** The release running (package.json's version; CHANGELOG.md says what it holds), logged at start. */
const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version

async function main() {
  const config = loadConfig()
  const service = await startService(config)
  // Before anything is announced: a SIGTERM that follows the banner (a supervisor, a test) must
  // find the handler in place, or Node's default ends the process without closing anything.
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    service.app.log.info({ signal }, 'shutting down')
    await service.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
  const address = await service.app.listen({ port: config.port, host: config.host })
  service.jobs.start()
  collectWhenQuiet()

  if (service.sandbox) {
    const demo = await ensureDemoMerchant({ store: service.store, clock: service.clock, fake: service.sandbox.fake, tokenCache: service.tokenCache })
    const lines = [
      '',
      `Pix charge service ${version} (sandbox mode) at ${config.baseUrl} (listening at ${address})`,
      `  database:        ${service.database.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)'}`,
      `  demo merchant:   ${demo.email} (merchantId ${demo.euid})`,
      `  demo API token:  ${demo.token}   (a new one each start; the previous one is revoked)`,
      `  operator token:  ${service.opsToken}`,
      `  Wallet:          ${config.baseUrl}/wallet   (sign-in codes: ${config.smtpUrl ? 'sent over SMTP' : `GET ${config.baseUrl}/sandbox/outbox?email=`})`,
      '',
      'Create a charge:',
      // A CPF of its own: the README's walk-through uses others, and a payer binds to the first account it pays.
      `  curl -s -X POST ${config.baseUrl}/api/create-payment -H 'X-API-Token: ${demo.token}' -H 'Content-Type: application/json' -d '{"value":"10.00","email":"customer@example.com","tax_number":"45317828791","payer_name":"Cliente Demo"}'`,
      '',
    ]
    process.stdout.write(lines.join('\n') + '\n')
  } else {
    service.app.log.info({ baseUrl: config.baseUrl, address, version }, 'listening in production mode')
    for (const warning of productionWarnings(config)) service.app.log.warn({ warning: warning.code }, warning.message)
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirLockedError) {
    process.stderr.write(`cannot start: ${error.message}\n`)
  } else {
    process.stderr.write(`cannot start: ${(error as Error).stack ?? String(error)}\n`)
  }
  process.exit(1)
})
