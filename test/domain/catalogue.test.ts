// Issue 22, point 2: one catalogue per language, each with every text the other has.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { chargeStatuses } from '../../src/domain/charge.ts'
import { errorCatalogue } from '../../src/domain/errors.ts'
import { catalogues, errorFix, errorText, formatDateTime, langs } from '../../src/i18n/catalogue.ts'

/** Every text of a catalogue by its path ("wallet.signInTitle", "docs.concepts.0"). */
function texts(value: unknown, path = ''): Map<string, string> {
  if (typeof value === 'string') return new Map([[path, value]])
  assert.ok(typeof value === 'object' && value !== null, `${path} is neither a text nor a section`)
  return new Map(Object.entries(value).flatMap(([key, inner]) => [...texts(inner, path ? `${path}.${key}` : key)]))
}

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort()

test('issue 22 (point 2): both languages have every key, none empty, with the same placeholders', () => {
  const [pt, en] = [texts(catalogues['pt-BR']), texts(catalogues.en)]
  assert.deepEqual([...en.keys()].sort(), [...pt.keys()].sort())
  for (const [path, ptText] of pt) {
    const enText = en.get(path)!
    assert.ok(ptText.trim() !== '' && enText.trim() !== '', `${path} is empty`)
    assert.deepEqual(placeholders(enText), placeholders(ptText), `${path}: the placeholders differ`)
  }
  assert.ok(pt.size > 200, `only ${pt.size} texts: the catalogue lost a section`)
})

test('issue 22 (point 2), issue 25 (point 6): every error code has its text and what to do about it, and every status its text, in both languages', () => {
  for (const lang of langs) {
    assert.deepEqual(Object.keys(catalogues[lang].errors).sort(), Object.keys(errorCatalogue).sort(), lang)
    assert.deepEqual(Object.keys(catalogues[lang].errorFixes).sort(), Object.keys(errorCatalogue).sort(), lang)
    for (const code of Object.keys(errorCatalogue) as Array<keyof typeof errorCatalogue>) {
      assert.ok(errorText(code, lang).length > 5, `${lang} ${code}`)
      assert.ok(errorFix(code, lang).length > 20, `${lang}: what to do about ${code}`)
      // A fix that only repeats the message tells the reader nothing new.
      assert.notEqual(errorFix(code, lang), errorText(code, lang), `${lang}: ${code}`)
      assert.equal(errorFix(code, lang).split('`').length % 2, 1, `${lang}: ${code} has an unclosed code span`)
    }
    assert.deepEqual(Object.keys(catalogues[lang].statuses).sort(), [...chargeStatuses].sort(), lang)
    assert.deepEqual(Object.keys(catalogues[lang].docs.statusMeaning).sort(), [...chargeStatuses].sort(), lang)
  }
  // The Portuguese is Portuguese: no error text is the English one copied over.
  const same = (Object.keys(errorCatalogue) as Array<keyof typeof errorCatalogue>).filter((code) => errorText(code, 'pt-BR') === errorText(code, 'en') || errorFix(code, 'pt-BR') === errorFix(code, 'en'))
  assert.deepEqual(same, [])
})

test('issue 22 (point 2): dates read in São Paulo time, in the page language', () => {
  const noon = new Date('2026-11-23T12:00:05Z')
  assert.equal(formatDateTime('pt-BR', noon), '23/11/2026, 09:00:05')
  assert.equal(formatDateTime('en', noon), 'Nov 23, 2026, 9:00:05 AM')
  // Brazil has kept one offset all year since 2019: a July date is three hours behind UTC too.
  assert.equal(formatDateTime('pt-BR', new Date('2026-07-01T02:30:00Z')), '30/06/2026, 23:30:00')
})
