// CPF/CNPJ and EUID rules. Check digits come from @brazilian-utils/brazilian-utils (it handles
// the alphanumeric CNPJ and the reserved numbers); we own normalization and masking.
import { isValidCnpj, isValidCpf } from '@brazilian-utils/brazilian-utils'

export type TaxNumber = { kind: 'cpf' | 'cnpj'; value: string }

/** The bare characters of a CPF/CNPJ as written with dots, dashes, slashes or spaces; upper-cased. */
export function stripTaxNumber(input: string): string {
  return input.replace(/[.\-/\s]/g, '').toUpperCase()
}

/** Strips punctuation, uppercases, checks the check digits. Null when not a valid CPF/CNPJ. */
export function parseTaxNumber(input: string): TaxNumber | null {
  const value = stripTaxNumber(input)
  if (/^\d{11}$/.test(value)) return isValidCpf(value) ? { kind: 'cpf', value } : null
  if (/^[0-9A-Z]{12}\d{2}$/.test(value)) return isValidCnpj(value, { version: 2 }) ? { kind: 'cnpj', value } : null
  return null
}

/** The provider may report a tax number masked ("***.444.777-**"): it names no one on its own. */
export function isMaskedTaxNumber(value: string): boolean {
  return value.includes('*')
}

/** CPF `***.456.789-**`; CNPJ `12.345.678/****-**`; one that came masked stays as it came. Anything else is masked whole. */
export function maskTaxNumber(value: string): string {
  if (isMaskedTaxNumber(value)) return value
  if (value.length === 11) return `***.${value.slice(3, 6)}.${value.slice(6, 9)}-**`
  if (value.length === 14) return `${value.slice(0, 2)}.${value.slice(2, 5)}.${value.slice(5, 8)}/****-**`
  return '*'.repeat(value.length)
}

/** An EUID: "EU" and 15 digits. A string, for the OpenAPI document's pattern too. */
export const euidPattern = '^EU[0-9]{15}$'
const euid = new RegExp(euidPattern)

export function isEuid(value: string): boolean {
  return euid.test(value)
}

/**
 * What parseTaxNumber accepts before the check digits, as a JSON Schema pattern for the OpenAPI
 * document: 11 digits (CPF), or 12 letters or digits and 2 digits (CNPJ), each followed by any of
 * the punctuation stripTaxNumber drops.
 */
export const taxNumberPattern = '^[-./\\s]*(?:(?:[0-9][-./\\s]*){11}|(?:[0-9A-Za-z][-./\\s]*){12}(?:[0-9][-./\\s]*){2})$'
