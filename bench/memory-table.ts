// The page's memory table (npm run bench) from bench/memory.ts's figures: each against its ceiling.

/** bench/memory.ts's figures (MB), from the JSON line it ends with. */
export type ServiceMemory = { startPeak: number; idle: number; loadPeak: number; after: number; requestsPerSecond: number; cpuMsPerRequest: number; non2xx: number }
export type MemoryFigures = {
  seconds: number; restSeconds: number; connections: number
  ceilings: { embedded: { startPeak: number; idle: number; loadPeak: number }; postgres: { idle: number }; afterOverIdle: number }
  install: { peak: number; seconds: number }
  floor: { startPeak: number; idle: number }
  embedded: ServiceMemory & { restartPeak: number }
  postgres: ServiceMemory | null
}

/** The memory figures as the page's table: each against its ceiling. */
export function memoryTable(memory: MemoryFigures): string {
  const mb = (value: number) => `${value.toFixed(0)} MB`
  const atMost = (value: number, ceiling: number) => `${mb(value)} | ≤ ${ceiling} MB: ${value <= ceiling ? 'met' : '**missed**'}`
  const back = (figures: ServiceMemory) => {
    const share = figures.after / figures.idle
    return `${mb(figures.after)} (${(share * 100).toFixed(0)} % of idle) | ≤ ${(memory.ceilings.afterOverIdle * 100).toFixed(0)} % of idle: ${share <= memory.ceilings.afterOverIdle ? 'met' : '**missed**'}`
  }
  const { embedded, postgres, install, floor, ceilings } = memory
  const ratio = (value: number, of: number) => `${(value / of).toFixed(2)}×`
  const rows = [
    `| Embedded: peak of a first start (the install's empty cluster copied, migrations) | ${atMost(embedded.startPeak, ceilings.embedded.startPeak)} | ${ratio(embedded.startPeak, floor.startPeak)} |`,
    `| Embedded: peak of a later start on the same folder | ${mb(embedded.restartPeak)} | | |`,
    `| Embedded: idle, 10 s after a first charge | ${atMost(embedded.idle, ceilings.embedded.idle)} | ${ratio(embedded.idle, floor.idle)} |`,
    `| Embedded: peak under ${memory.connections} clients for ${memory.seconds} s (${embedded.requestsPerSecond.toFixed(0)} req/s, ${embedded.cpuMsPerRequest.toFixed(2)} ms of CPU a request) | ${atMost(embedded.loadPeak, ceilings.embedded.loadPeak)} | ${ratio(embedded.loadPeak, floor.idle)} |`,
    `| Embedded: ${memory.restSeconds} s after the load | ${back(embedded)} | |`,
    ...(postgres === null ? ['| PostgreSQL | not measured (no server) | | |'] : [
      `| PostgreSQL: idle | ${atMost(postgres.idle, ceilings.postgres.idle)} | |`,
      `| PostgreSQL: peak under ${memory.connections} clients (${postgres.requestsPerSecond.toFixed(0)} req/s, ${postgres.cpuMsPerRequest.toFixed(2)} ms of CPU a request) | ${mb(postgres.loadPeak)} | | |`,
      `| PostgreSQL: ${memory.restSeconds} s after the load | ${back(postgres)} | |`,
    ]),
  ]
  return `| Figure | Resident | Ceiling | Against the bare PGlite |
|---|---|---|---|
${rows.join('\n')}

The bare PGlite (\`bench/pglite-floor.ts\`: \`openPglite\` with the service's settings, under \`npm start\`'s
flags, nothing else) peaked at ${mb(floor.startPeak)} opening a new folder and rests at ${mb(floor.idle)}. The install's
step that makes the empty cluster a new folder copies (\`postinstall\`: PGlite's initdb, once per
\`npm ci\`) peaked at ${mb(install.peak)} and took ${install.seconds.toFixed(1)} s.`
}
