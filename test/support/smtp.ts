// A real SMTP server on a loopback port for tests: it receives the service's mail, or behaves as
// a mail server on a bad day: refusing connections (stopped), holding them without a greeting
// (hanging), or answering 451 to every recipient; then recovers on the same port.
import { connect, createServer, type Server, type Socket } from 'node:net'
import { SMTPServer } from 'smtp-server'

export type SmtpBehaviour = 'accept' | 'refuse' | 'hang' | 'tempfail'

export async function startSmtp(options: { greetingDelayMs?: number } = {}) {
  const inbox = new Map<string, string[]>()
  const waiting = new Map<string, (text: string) => void>()
  let behaviour: SmtpBehaviour = 'accept'
  let received = 0
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      // A slow mail server: the greeting comes late (enumeration tests measure against it).
      if (options.greetingDelayMs) setTimeout(() => callback(), options.greetingDelayMs)
      else callback()
    },
    onRcptTo(_address, _session, callback) {
      if (behaviour === 'tempfail') {
        const error = new Error('Mailbox temporarily unavailable') as Error & { responseCode: number }
        error.responseCode = 451
        return callback(error)
      }
      callback()
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        received++
        for (const to of session.envelope.rcptTo) {
          inbox.set(to.address, [...(inbox.get(to.address) ?? []), text])
          waiting.get(to.address)?.(text)
        }
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
  const inner = (smtp.server.address() as { port: number }).port
  // In front of the SMTP server, a plain TCP listener that can refuse (closed) or hang (accept,
  // never greet), and otherwise pipes each connection through to the SMTP server.
  const hanging = new Set<Socket>()
  let front: Server | null = null
  let port = 0
  const listen = async () => {
    front = createServer((socket) => {
      if (behaviour === 'hang') {
        hanging.add(socket)
        socket.on('close', () => hanging.delete(socket))
        socket.on('error', () => {})
        return
      }
      const through = connect(inner, '127.0.0.1')
      socket.on('error', () => through.destroy())
      through.on('error', () => socket.destroy())
      socket.pipe(through).pipe(socket)
    })
    await new Promise<void>((resolve) => front!.listen(port, '127.0.0.1', resolve))
    port = (front.address() as { port: number }).port
  }
  const stopListening = () => new Promise<void>((resolve) => {
    if (!front) return resolve()
    for (const socket of hanging) socket.destroy()
    front.close(() => resolve())
    front = null
  })
  await listen()
  return {
    url: `smtp://127.0.0.1:${port}`,
    /** How many messages it took. */
    received: () => received,
    /** Every message to this address so far, as raw text. */
    messages: (address: string) => [...(inbox.get(address) ?? [])],
    /** The next message to this address (or the oldest one not yet taken), as raw text. */
    next: (address: string) => new Promise<string>((resolve) => {
      const known = inbox.get(address)
      if (known?.length) return resolve(known.shift()!)
      waiting.set(address, (text) => {
        waiting.delete(address)
        inbox.get(address)!.shift()
        resolve(text)
      })
    }),
    async behave(next: SmtpBehaviour) {
      if (next === 'refuse' && front) await stopListening()
      if (next !== 'refuse' && !front) {
        behaviour = next
        await listen()
      }
      behaviour = next
    },
    close: async () => {
      await stopListening()
      await new Promise<void>((resolve) => smtp.close(() => resolve()))
    },
  }
}

export type TestSmtp = Awaited<ReturnType<typeof startSmtp>>

/** The body of a raw message as the owner reads it (nodemailer sends it quoted-printable or base64). */
export function mailText(raw: string): string {
  const split = raw.indexOf('\r\n\r\n')
  const headers = raw.slice(0, split)
  const body = raw.slice(split + 4)
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase()
  if (encoding === 'base64') return Buffer.from(body, 'base64').toString('utf8')
  if (encoding === 'quoted-printable') {
    return Buffer.from(body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8')
  }
  return body
}
