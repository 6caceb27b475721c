// A PostgreSQL server of the test's own (initdb in a temporary folder, on a free port), for tests
// that stop and start the database under a running service: the shared server at 127.0.0.1:5432
// serves the rest of the suite and must never go away.
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { freePort } from './free-port.ts'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

function binaries(): string {
  const root = '/usr/lib/postgresql'
  const version = readdirSync(root).sort().at(-1)
  if (!version) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql')
  return join(root, version, 'bin')
}

/** PostgreSQL refuses to run as root: as root, its commands run as the postgres user. */
function run(command: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0
  execFileSync(asRoot ? 'runuser' : command, asRoot ? ['-u', 'postgres', '--', command, ...args] : args, { stdio: 'pipe' })
}

export async function startPrivatePostgres() {
  const bin = binaries()
  const dir = mkdtempSync(join(tmpdir(), 'pix-private-pg-'))
  chmodSync(dir, 0o777)
  const data = join(dir, 'data')
  const port = await freePort()
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir])
  run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C'])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=16MB`
  // With a log file of its own, the server does not hold on to our pipes (execFileSync would wait for it).
  const start = () => run(join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-s', 'start'])
  const stop = () => run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', '-s', 'stop'])
  start()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    async close() {
      try {
        stop()
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
