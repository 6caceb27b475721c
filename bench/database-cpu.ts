// The CPU PostgreSQL's backends spend for a bench, read from /proc: the server is no child of
// the bench, so its work shows in no figure of the bench's own process.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import type pg from 'pg'

const clockTicksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }))

/** The process ids of the backends serving database `name`, asked of another database's connection. */
export async function backendPids(admin: pg.Client, name: string): Promise<number[]> {
  return (await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [name])).rows.map((row) => row.pid)
}

/**
 * CPU seconds used so far by each of these backends, by process id. Left out: a backend that
 * ended, and a process id that is no PostgreSQL process here (the server is on another machine).
 */
export function backendCpuSeconds(pids: number[]): Map<number, number> {
  const seconds = new Map<number, number>()
  for (const pid of pids) {
    let stat: string
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    } catch {
      continue
    }
    if (!stat.includes('(postgres')) continue
    // utime and stime, the 14th and 15th fields, counted after the parenthesised command name.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    seconds.set(pid, (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond)
  }
  return seconds
}
