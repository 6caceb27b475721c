// Each environment variable declared once (kind, default, bounds, whether production needs it, its
// README row): the service parses its settings through the declarations and the README's table is
// generated from them, so the documentation cannot drift from what the code accepts.

export const modes = ['sandbox', 'production'] as const
export type Mode = (typeof modes)[number]

export type Env = Record<string, string | undefined>

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** A value its kind refuses, phrased to follow the variable's name: "must be …". */
class Refusal extends Error {}

/** Another variable's value, for a default that follows from it (BASE_URL from PORT, …). */
type Lookup = (name: string) => unknown

type Kind = 'string' | 'url' | 'integer' | 'on-off' | 'enum' | 'custom'
type Bounds = { minimum?: number; maximum?: number }
type Range = Bounds & { production?: Bounds }

export type Variable<T> = {
  kind: Kind
  /** Turns a set value (trimmed, not empty) into the setting, or throws what is wrong with it. */
  parse: (text: string) => T
  /** The value when the variable is unset or empty. */
  fallback: (lookup: Lookup) => T
  minimum?: number
  maximum?: number
  /** Bounds that replace these in production: the sandbox may run with values a real provider refuses. */
  production?: Bounds
  requiredInProduction: boolean
  /** README's "Default" column. */
  documentedDefault: string
  /** README's "Meaning" column. */
  description: string
}

type Documented = { description: string; requiredInProduction?: true }
/** A constant default; a default derived from other variables; or none, which leaves the setting null. */
type Defaulted<T> =
  | { default: T; documentedDefault?: string }
  | { derive: (lookup: Lookup) => T; documentedDefault: string }
  | { documentedDefault: string }
type Spec<T> = Documented & Defaulted<T>
type Declared<T, S> = S extends { default: unknown } | { derive: unknown } ? T : T | null

function declare<T, S extends Spec<T>>(kind: Kind, parse: (text: string) => T, show: (value: T) => string, spec: S & Range): Variable<Declared<T, S>> {
  const declared: Spec<T> & Range = spec
  const documentedDefault = 'default' in declared ? (declared.documentedDefault ?? `\`${show(declared.default)}\``) : declared.documentedDefault
  const variable: Variable<T | null> = {
    kind,
    parse,
    fallback: 'derive' in declared ? declared.derive : 'default' in declared ? () => declared.default : () => null,
    ...(declared.minimum === undefined ? {} : { minimum: declared.minimum }),
    ...(declared.maximum === undefined ? {} : { maximum: declared.maximum }),
    ...(declared.production === undefined ? {} : { production: declared.production }),
    requiredInProduction: declared.requiredInProduction ?? false,
    documentedDefault,
    description: declared.description,
  }
  // Whether T includes null follows from the spec, which TypeScript cannot see through inside the body.
  return variable as Variable<Declared<T, S>>
}

export function text<S extends Spec<string>>(spec: S): Variable<Declared<string, S>> {
  return declare('string', (value) => value, String, spec)
}

export function url<S extends Spec<string>>(spec: S): Variable<Declared<string, S>> {
  return declare('url', httpUrl, String, spec)
}

export function integer<S extends Spec<number> & Range & { minimum: number; maximum: number }>(spec: S): Variable<Declared<number, S>> {
  return declare('integer', wholeNumber, String, spec)
}

export function onOff<S extends Spec<boolean>>(spec: S): Variable<Declared<boolean, S>> {
  return declare('on-off', (value) => {
    if (value !== 'on' && value !== 'off') throw new Refusal(`must be "on" or "off", got "${value}"`)
    return value === 'on'
  }, (value) => (value ? 'on' : 'off'), spec)
}

export function oneOf<const V extends readonly string[], S extends Spec<V[number]>>(values: V, spec: S): Variable<Declared<V[number], S>> {
  const allowed: readonly string[] = values
  return declare('enum', (value) => {
    if (!allowed.includes(value)) throw new Refusal(`must be one of ${values.map((each) => `"${each}"`).join(', ')}; got "${value}"`)
    return value as V[number]
  }, String, spec)
}

/** A kind of its own; its default is documented by hand, as only the parser knows how it is written. */
export function custom<T, S extends Spec<T> & { documentedDefault: string }>(parse: (text: string) => T, spec: S): Variable<Declared<T, S>> {
  return declare('custom', parse, String, spec)
}

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new Refusal(`must be a whole number, got "${value}"`)
  return Number(value)
}

/** An absolute http(s) URL, without trailing slashes so paths can be appended. */
export function httpUrl(value: string): string {
  let parsed: URL
  try {
    parsed = new URL(value)
  } catch {
    throw new Refusal(`must be an absolute URL, got "${value}"`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Refusal('must be http(s)')
  return value.replace(/\/+$/, '')
}

type Values<E> = { [K in keyof E]: E[K] extends Variable<infer T> ? T : never }

export function parseEnvironment<E extends Record<string, Variable<unknown>>>(variables: E, env: Env): Values<E> {
  const declared: Record<string, Variable<unknown>> = variables
  const setValue = (name: string) => env[name]?.trim() || null
  const parsed = new Map<string, unknown>()
  // MODE is declared like any other variable; what production demands depends on it.
  const production = () => value('MODE') === 'production'

  // Memoised, so a derived default may look up any variable whatever the order of declaration.
  const value = (name: string): unknown => {
    if (parsed.has(name)) return parsed.get(name)
    const variable = declared[name]
    if (variable === undefined) throw new Error(`${name} is not declared in the configuration schema`)
    const set = setValue(name)
    let result: unknown
    try {
      result = set === null ? variable.fallback(value) : variable.parse(set)
    } catch (error) {
      if (error instanceof ConfigError) throw error
      throw new ConfigError(error instanceof Refusal ? `${name} ${error.message}` : `${name}: ${(error as Error).message}`)
    }
    if (typeof result === 'number') checkBounds(name, variable, result, production)
    parsed.set(name, result)
    return result
  }

  if (production()) {
    const missing = Object.keys(declared).filter((name) => declared[name]!.requiredInProduction && setValue(name) === null)
    if (missing.length > 0) throw new ConfigError(`production mode needs ${missing.join(', ')}; set them in the environment`)
  }
  return Object.fromEntries(Object.keys(declared).map((name) => [name, value(name)])) as Values<E>
}

function checkBounds(name: string, variable: Variable<unknown>, value: number, production: () => boolean): void {
  const inProduction = variable.production !== undefined && production()
  const minimum = (inProduction ? variable.production?.minimum : undefined) ?? variable.minimum ?? -Infinity
  const maximum = (inProduction ? variable.production?.maximum : undefined) ?? variable.maximum ?? Infinity
  if (value < minimum || value > maximum) {
    throw new ConfigError(`${name} must be between ${minimum} and ${maximum}${inProduction ? ' in production' : ''}, got ${value}`)
  }
}

/** The values a number may take, as the table shows them: "0–720; production 1–720". */
function range(variable: Variable<unknown>): string {
  if (variable.minimum === undefined && variable.maximum === undefined) return ''
  const span = (bounds: Bounds) => `${bounds.minimum ?? '…'}–${bounds.maximum ?? '…'}`
  const production = variable.production ? `; production ${span({ minimum: variable.minimum, maximum: variable.maximum, ...variable.production })}` : ''
  return `${span(variable)}${production}`
}

export function configTable(variables: Record<string, Variable<unknown>>): string {
  const rows = Object.entries(variables).map(([name, variable]) => {
    const meaning = variable.requiredInProduction ? `${variable.description} (production: required)` : variable.description
    return `| \`${name}\` | ${variable.documentedDefault} | ${range(variable)} | ${meaning} |`
  })
  return ['| Variable | Default | Range | Meaning |', '|---|---|---|---|', ...rows].join('\n')
}

const TABLE_START = '<!-- config:start: generated from src/config.ts by npm run docs:config -->'
const TABLE_END = '<!-- config:end -->'

/** The README with the table between its markers replaced by the one the declarations give. */
export function withConfigTable(readme: string, variables: Record<string, Variable<unknown>>): string {
  const start = readme.indexOf(TABLE_START)
  const end = readme.indexOf(TABLE_END)
  if (start < 0 || end < start) throw new Error(`README needs the markers ${TABLE_START} and ${TABLE_END} around its configuration table`)
  return `${readme.slice(0, start + TABLE_START.length)}\n\n${configTable(variables)}\n\n${readme.slice(end)}`
}
