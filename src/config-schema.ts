// The environment is read through one TypeBox schema (src/config.ts): each variable's type,
// default, bounds, production rules and README row are written once, on its schema. This file
// validates an environment against such a schema with ajv, reporting every wrong variable at
// once, and writes the README's table from it. Annotations ajv does not check, kept on each
// variable's schema: `documentedDefault` (the Default column where the value derives from other
// variables), `requiredInProduction`, `production` (bounds that replace the general ones there).
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { Type, type StaticDecode, type TObject, type TProperties, type TSchema } from 'typebox'

export const modes = ['sandbox', 'production'] as const
export type Mode = (typeof modes)[number]

export type Env = Record<string, string | undefined>

/** Every wrong variable of one start, each a line of the message (`problems`). */
export class ConfigError extends Error {
  override name = 'ConfigError'
  readonly problems: readonly string[]
  constructor(problems: string | readonly string[]) {
    const list = typeof problems === 'string' ? [problems] : problems
    super(list.join('\n'))
    this.problems = list
  }
}

type Bounds = { minimum?: number; maximum?: number }
type Annotations = { documentedDefault?: string; requiredInProduction?: boolean; production?: Bounds }
type Variable = TSchema & Annotations & Bounds & { type?: string; default?: unknown; enum?: readonly unknown[]; description?: string }

/**
 * The environment's schema: the variables, and what production demands of them, drawn from
 * their annotations into a JSON Schema `if MODE is production then …`, so ajv reports it with the rest.
 */
export function environmentSchema<P extends TProperties>(properties: P): TObject<P> {
  const variables = Object.entries(properties as Record<string, Variable>)
  const required = variables.filter(([, variable]) => variable.requiredInProduction).map(([name]) => name)
  const bounds = Object.fromEntries(variables.filter(([, variable]) => variable.production).map(([name, variable]) => [name, { type: variable.type, minimum: variable.minimum, maximum: variable.maximum, ...variable.production }]))
  // ajv runs if/then before it assigns the object's defaults, so `required` sees what was set:
  // MAIL_FROM has a default and production still needs it set (test/domain/config.test.ts).
  return Type.Object(properties, {
    additionalProperties: false,
    if: { required: ['MODE'], properties: { MODE: { const: 'production' } } },
    then: { required, properties: bounds },
  })
}

/** An absolute http(s) URL, without trailing slashes so paths can be appended. */
export function httpUrl(value: string): string {
  let parsed: URL
  try {
    parsed = new URL(value)
  } catch {
    throw new Error(`must be an absolute URL, got "${value}"`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('must be http(s)')
  return value.replace(/\/+$/, '')
}

/** A variable whose text is turned into its setting by `parse`, which throws what is wrong with it. */
export function parsed<T>(parse: (text: string) => T, options: Annotations & { default?: string; description: string }) {
  return Type.Decode(Type.String(options), parse)
}

export const url = (options: Annotations & { default?: string; description: string }) => parsed(httpUrl, options)

export const onOff = (options: { default: 'on' | 'off'; description: string }) => Type.Decode(Type.Enum(['on', 'off'], options), (value) => value === 'on')

// Defaults are assigned before the codecs run, so a default is written as the environment would
// hold it and goes through the same parser. Integers are turned into numbers by us, not by ajv's
// coercion, which would also take "0x10" and "1e3". The schema is ours, so it is not checked
// against the meta-schema (110 of a first start's 150 ms of ajv); strict mode still refuses an
// unknown keyword.
const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, strictRequired: false, validateSchema: false, keywords: ['documentedDefault', 'requiredInProduction', 'production'] })
const validators = new WeakMap<TObject, ValidateFunction>()

/** The settings an environment gives, or a ConfigError naming every variable that is wrong. */
export function readEnvironment<S extends TObject>(schema: S, env: Env): StaticDecode<S> {
  const variables = schema.properties as Record<string, Variable>
  const data: Record<string, unknown> = {}
  for (const [name, variable] of Object.entries(variables)) {
    const set = env[name]?.trim()
    if (set) data[name] = variable.type === 'integer' && /^\d+$/.test(set) ? Number(set) : set
  }
  let validate = validators.get(schema)
  if (validate === undefined) validators.set(schema, (validate = ajv.compile(schema)))
  const wrong = validate(data) ? new Map<string, string>() : describe(validate.errors ?? [], variables, data)
  const problems = [...wrong.values()]
  const settings: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(data)) {
    if (wrong.has(name)) continue
    try {
      const variable = variables[name]!
      settings[name] = Type.IsCodec(variable) ? variable['~codec'].decode(value) : value
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`)
    }
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return settings as StaticDecode<S>
}

/** A line per wrong variable, by name; the variables production needs and lacks, together first. */
function describe(errors: readonly ErrorObject[], variables: Record<string, Variable>, data: Record<string, unknown>): Map<string, string> {
  const missing = errors.filter((error) => error.keyword === 'required').map((error) => String(error.params.missingProperty))
  const lines = new Map<string, string>(missing.length > 0 ? [['', `production mode needs ${missing.join(', ')}; set them in the environment`]] : [])
  for (const error of errors) {
    const name = error.instancePath.slice(1)
    if (name === '' || lines.has(name)) continue // '': the object's own (`required`, `if`)
    const variable = variables[name]!
    const got = data[name]
    const inProduction = error.schemaPath.startsWith('#/then/')
    const bounds = { ...variable, ...(inProduction ? variable.production : {}) }
    lines.set(name,
      error.keyword === 'minimum' || error.keyword === 'maximum' ? `${name} must be between ${bounds.minimum ?? '…'} and ${bounds.maximum ?? '…'}${inProduction ? ' in production' : ''}, got ${String(got)}`
        : error.keyword === 'type' && variable.type === 'integer' ? `${name} must be a whole number, got "${String(got)}"`
          : error.keyword === 'enum' ? `${name} must be one of ${(variable.enum ?? []).map((each) => `"${String(each)}"`).join(', ')}; got "${String(got)}"`
            : `${name} ${error.message ?? 'is wrong'}, got "${String(got)}"`)
  }
  return lines
}

/** The values a number may take, as the table shows them: "0–720; production 1–720". */
function range(variable: Variable): string {
  if (variable.minimum === undefined && variable.maximum === undefined) return ''
  const span = (bounds: Bounds) => `${bounds.minimum ?? '…'}–${bounds.maximum ?? '…'}`
  const production = variable.production ? `; production ${span({ minimum: variable.minimum, maximum: variable.maximum, ...variable.production })}` : ''
  return `${span(variable)}${production}`
}

export function configTable(schema: TObject): string {
  const rows = Object.entries(schema.properties as Record<string, Variable>).map(([name, variable]) => {
    const documentedDefault = variable.documentedDefault ?? `\`${String(variable.default)}\``
    const meaning = variable.requiredInProduction ? `${variable.description} (production: required)` : variable.description
    return `| \`${name}\` | ${documentedDefault} | ${range(variable)} | ${meaning} |`
  })
  return ['| Variable | Default | Range | Meaning |', '|---|---|---|---|', ...rows].join('\n')
}

const TABLE_START = '<!-- config:start: generated from src/config.ts by npm run docs:config -->'
const TABLE_END = '<!-- config:end -->'

/** The README with the table between its markers replaced by the one the schema gives. */
export function withConfigTable(readme: string, schema: TObject): string {
  const start = readme.indexOf(TABLE_START)
  const end = readme.indexOf(TABLE_END)
  if (start < 0 || end < start) throw new Error(`README needs the markers ${TABLE_START} and ${TABLE_END} around its configuration table`)
  return `${readme.slice(0, start + TABLE_START.length)}\n\n${configTable(schema)}\n\n${readme.slice(end)}`
}
