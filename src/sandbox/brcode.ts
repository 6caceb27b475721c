// Pix BR Code ("copia e cola") builder, per the BCB manual on EMV MPM (reference/pix-brcode.md).
// Small enough that owning it beats a dependency; tests check it against independent parsers.

/** CRC-16/CCITT-FALSE (poly 0x1021) of each byte value, for the byte-at-a-time loop below. */
const CRC_TABLE = Uint16Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  return crc
})

/**
 * CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor. A byte at a time
 * from a table rather than a bit at a time: every sandbox deposit computes one.
 */
export function crc16ccitt(payload: string): string {
  let crc = 0xffff
  for (let i = 0; i < payload.length; i++) crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[((crc >> 8) ^ payload.charCodeAt(i)) & 0xff]!
  return crc.toString(16).toUpperCase().padStart(4, '0')
}

function tlv(id: string, value: string): string {
  if (value.length < 1 || value.length > 99) throw new RangeError(`BR Code field ${id} must be 1..99 characters`)
  return `${id}${value.length.toString().padStart(2, '0')}${value}`
}

/** Printable ASCII only: CRC implementations disagree on anything else. */
function asciiOnly(value: string, max: number): string {
  const plain = value.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^\x20-\x7e]/g, '').trim()
  return (plain || 'X').slice(0, max)
}

export type DynamicBrCode = {
  /** Location URL without the scheme, at most 77 characters. */
  location: string
  amountCents: number
  merchantName: string
  merchantCity: string
}

/** A single-use dynamic Pix code: the payer's bank fetches the charge from `location`. */
export function buildDynamicBrCode(code: DynamicBrCode): string {
  if (code.location.length > 77) throw new RangeError('BR Code location must be at most 77 characters')
  const amount = `${Math.trunc(code.amountCents / 100)}.${(code.amountCents % 100).toString().padStart(2, '0')}`
  const body =
    tlv('00', '01') +
    tlv('01', '12') +
    tlv('26', tlv('00', 'br.gov.bcb.pix') + tlv('25', code.location)) +
    tlv('52', '0000') +
    tlv('53', '986') +
    tlv('54', amount) +
    tlv('58', 'BR') +
    tlv('59', asciiOnly(code.merchantName, 25)) +
    tlv('60', asciiOnly(code.merchantCity, 15)) +
    tlv('62', tlv('05', '***')) +
    '6304'
  return body + crc16ccitt(body)
}
