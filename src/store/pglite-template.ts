// The embedded database's empty cluster, made once by the install (package.json's postinstall runs
// scripts/pglite-template.ts) and copied into a new data folder at its first start. Without it
// PGlite runs initdb there: a second PostgreSQL in the service's process, the first start's peak
// (docs/performance.md, "Memory and start-up"). It imports only Node and PGlite, since the install
// runs it before the rest of the code is in place (the Dockerfile copies it ahead of npm ci).
import { closeSync, cpSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** postgresql.conf for the embedded database of a deployment (PGlite writes it at every start). */
export const EMBEDDED_SETTINGS = ['shared_buffers = 32MB']

const root = join(import.meta.dirname, '../..')

/**
 * Where the install keeps the empty cluster. What initdb makes depends only on PGlite's version:
 * PGlite fixes its locale, encoding and time zone, and the service passes it no initdb arguments.
 */
export function pgliteTemplateDir(): string {
  const { version } = JSON.parse(readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }
  return join(root, 'node_modules/.cache/pix-charge-service', `pglite-${version}`)
}

/** Writes a file's or a folder's contents to disk (fsync), so a rename that names it never outlives them. */
function syncPath(path: string): void {
  const fd = openSync(path, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

function syncTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) syncTree(join(dir, entry.name))
    else syncPath(join(dir, entry.name))
  }
  syncPath(dir)
}

/** Gives a folder made under another name its own, whole or not at all: synced, renamed, and the rename synced. */
function publish(partial: string, final: string): void {
  syncTree(partial)
  renameSync(partial, final)
  syncPath(dirname(final))
}

/**
 * Makes the empty cluster with PGlite as openPglite opens a new folder (PGlite's initdb, started
 * once with the service's settings, closed), unless it is there; by default the install's, where
 * older versions' clusters are removed. Answers whether it made one.
 */
export async function makePgliteTemplate(template: string = pgliteTemplateDir()): Promise<boolean> {
  if (existsSync(join(template, 'PG_VERSION'))) return false
  const parent = dirname(template)
  mkdirSync(parent, { recursive: true })
  const stale = template === pgliteTemplateDir() ? readdirSync(parent).map((name) => join(parent, name)) : [template]
  const partial = `${template}.partial`
  for (const path of [...stale, partial]) rmSync(path, { recursive: true, force: true })
  const { PGlite } = await import('@electric-sql/pglite')
  const pglite = new PGlite({ dataDir: partial, postgresqlconf: EMBEDDED_SETTINGS })
  await pglite.waitReady
  await pglite.close()
  publish(partial, template)
  return true
}

/**
 * Makes `folder` (absent) a copy of the empty cluster, whole or not at all: copied beside it under
 * another name, synced, then renamed, so a crash midway leaves nothing a later start would take
 * for a database. False when the install made none (`npm ci --ignore-scripts`): PGlite then runs
 * initdb in the folder, as it did before.
 */
export function copyPgliteTemplate(template: string, folder: string): boolean {
  if (!existsSync(join(template, 'PG_VERSION'))) return false
  const partial = `${folder}.partial`
  rmSync(partial, { recursive: true, force: true })
  cpSync(template, partial, { recursive: true })
  publish(partial, folder)
  return true
}
