import { sql, type AliasedRawBuilder } from 'kysely'

/**
 * A joined table's columns, each named `{prefix}__{column}` in a row that also carries another
 * table's `*`: one statement reads (and locks) both rows. The list is the table's every column
 * (the type refuses one missing), in the order given, which is the statement's text.
 */
export function columnsApart<Table>(table: string, prefix: string, columns: { [Column in keyof Table]-?: true }) {
  const names = Object.keys(columns)
  return {
    select: (): AliasedRawBuilder<unknown, string>[] => names.map((column) => sql.ref(`${table}.${column}`).as(`${prefix}__${column}`)),
    /** Moves the table's columns out of `row` into a row of their own. */
    take<Row>(row: Record<string, unknown>): Row {
      const taken: Record<string, unknown> = {}
      for (const column of names) {
        taken[column] = row[`${prefix}__${column}`]
        delete row[`${prefix}__${column}`]
      }
      return taken as Row
    },
  }
}
