// The queues of work support keeps (docs/rules.md#console), in the order the console lists them:
// the console's pages, its daily digest and /metrics all name them from here.
export const consoleQueues = ['holds', 'refunds', 'withdrawals', 'unknown_deposits', 'provider_refusals', 'stuck_reconciliations'] as const
export type ConsoleQueue = (typeof consoleQueues)[number]
