// Issue 52: how exported values are written: amounts as plain decimals in either flavour, dates
// read in the owner's time zone (an offset cached per quarter-hour must read as Intl does, across
// changes of offset), and a period of the owner's days.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { amountText, csvFlavourOf, localDateTimeText, periodOf, wallClock } from '../../src/domain/export-format.ts'

test('amounts: a decimal comma or point, the currency\'s decimals, no thousands separator, a minus sign', () => {
  assert.equal(amountText('DEPIX', 123_456, 'br'), '1234,56')
  assert.equal(amountText('DEPIX', -100, 'standard'), '-1.00')
  assert.equal(amountText('BTC', 12_345, 'br'), '0,00012345')
  assert.equal(amountText('USDt', 4_512_345, 'standard'), '4.512345')
  assert.deepEqual(['', 'br', 'standard', 'excel'].map((value) => csvFlavourOf(value)), ['br', 'br', 'standard', null])
})

test('dates in the time zone, as Intl reads them, whatever the zone and the moment (changes of offset included)', () => {
  const zones = ['America/Sao_Paulo', 'America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kolkata', 'America/Noronha']
  fc.assert(fc.property(fc.constantFrom(...zones), fc.integer({ min: Date.UTC(2015, 0, 1), max: Date.UTC(2030, 0, 1) }), (zone, ms) => {
    const date = new Date(ms)
    const parts = Object.fromEntries(new Intl.DateTimeFormat('en-GB', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).formatToParts(date).map((part) => [part.type, part.value]))
    const clock = wallClock(date, zone)
    assert.deepEqual([clock.year, clock.month, clock.day, clock.hour, clock.minute, clock.second], [parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second])
  }), { numRuns: 3000 })
  const instant = new Date('2026-11-23T02:30:05Z')
  assert.equal(localDateTimeText(instant, 'America/Sao_Paulo', 'br'), '22/11/2026 23:30:05')
  assert.equal(localDateTimeText(instant, 'America/Sao_Paulo', 'standard'), '2026-11-22 23:30:05')
})

test('a period of the owner\'s days: a month or a range of days, from the start of the first to the start of the day after the last', () => {
  assert.deepEqual(periodOf({ month: '2026-11' }, 'America/Sao_Paulo'), { from: new Date('2026-11-01T03:00:00Z'), to: new Date('2026-12-01T03:00:00Z') })
  assert.deepEqual(periodOf({ month: '2026-12' }, 'America/Sao_Paulo'), { from: new Date('2026-12-01T03:00:00Z'), to: new Date('2027-01-01T03:00:00Z') })
  assert.deepEqual(periodOf({ from: '2026-03-08', to: '2026-03-08' }, 'America/New_York'), { from: new Date('2026-03-08T05:00:00Z'), to: new Date('2026-03-09T04:00:00Z') }, 'a 23-hour day')
  assert.deepEqual(periodOf({}, 'America/Sao_Paulo'), { from: null, to: null })
  for (const [query, invalid] of [[{ month: '2026-13' }, 'month'], [{ month: '26-11' }, 'month'], [{ from: '2026-02-30' }, 'from'], [{ to: 'tomorrow' }, 'to']] as const) {
    assert.deepEqual(periodOf(query, 'America/Sao_Paulo'), { invalid })
  }
})
