// The merchant API for tests, typed by the contract: each call's answer is the union of what the
// OpenAPI document says the route answers (the SDK's generated `paths`, sdk/src/openapi.ts), one
// member per status, so `assert.equal(answer.status, 200)` narrows `answer.body` to the record and
// a test that reads a field the contract does not have fails the typecheck.
import assert from 'node:assert/strict'
import type { paths } from '../../sdk/src/openapi.ts'
import type { BalanceTransaction } from '../../sdk/src/types.ts'

/** One request as a test makes it: `body` is sent as JSON, `payload` as given. */
export type RequestOptions = { method: string; url: string; token?: string; body?: unknown; headers?: Record<string, string>; payload?: string }
export type Answer = { status: number; body: any; headers: Record<string, unknown> }
/** How a request reaches the service: Fastify's inject in this process, or fetch to a child process. */
export type Transport = (options: RequestOptions) => Promise<Answer>

type Method = 'get' | 'post' | 'put' | 'delete'
type Path = keyof paths & string
/** A path template as the URLs that match it: `/api/get-payment/{payment_id}` → `/api/get-payment/${string}`. */
type Pattern<P extends string> = P extends `${infer Head}{${string}}${infer Tail}` ? `${Head}${string}${Pattern<Tail>}` : P
type Operation<P extends Path, M extends Method> = paths[P] extends { [K in M]: infer O } ? ([O] extends [undefined] ? never : O) : never
/** Every URL (with or without a query) the contract has a route for with method M. */
type Url<M extends Method> = { [P in Path]: [Operation<P, M>] extends [never] ? never : Pattern<P> | `${Pattern<P>}?${string}` }[Path]
type PathOf<M extends Method, U extends string> = { [P in Path]: [Operation<P, M>] extends [never] ? never : U extends Pattern<P> | `${Pattern<P>}?${string}` ? P : never }[Path]
type Json<R> = R extends { content: { 'application/json': infer B } } ? B : string
type Answers<O> = O extends { responses: infer R } ? { [S in keyof R & number]: { status: S; body: Json<R[S]>; headers: Record<string, unknown> } }[keyof R & number] : never
type BodyOf<O> = O extends { requestBody?: infer B } ? Json<NonNullable<B>> : never
/** A POST's body and options; `undefined` for a route that takes no body. */
type PostArgs<O> = [BodyOf<O>] extends [never] ? [body: undefined, options?: Options] : [body: BodyOf<O>, options?: Options]
type Reply<M extends Method, U extends string> = Promise<Answers<Operation<PathOf<M, U>, M>>>
type Options = { token?: string; headers?: Record<string, string> }

/** The typed calls over a transport: `api.get(`/api/get-payment/${id}`, { token })`. */
export function typedApi(request: Transport) {
  const call = (method: string, url: string, options: Options & { body?: unknown } = {}) => request({ method, url, ...options }) as Promise<never>
  return {
    get: <const U extends Url<'get'>>(url: U, options?: Options): Reply<'get', U> => call('GET', url, options),
    post: <const U extends Url<'post'>>(url: U, ...[body, options]: PostArgs<Operation<PathOf<'post', U>, 'post'>>): Reply<'post', U> => call('POST', url, { ...options, body }),
    /** A body the contract may refuse (the request-shape tests), the answer still typed. */
    postUntyped: <const U extends Url<'post'>>(url: U, body: unknown, options?: Options): Reply<'post', U> => call('POST', url, { ...options, body }),
    put: <const U extends Url<'put'>>(url: U, ...[body, options]: PostArgs<Operation<PathOf<'put', U>, 'put'>>): Reply<'put', U> => call('PUT', url, { ...options, body }),
    delete: <const U extends Url<'delete'>>(url: U, options?: Options): Reply<'delete', U> => call('DELETE', url, options),
  }
}

export type TypedApi = ReturnType<typeof typedApi>

/** A transport to a service listening at `base` (a child process): JSON bodies, the token as X-API-Token. */
export function fetchTransport(base: () => string): Transport {
  return async ({ method, url, token, body, headers, payload }) => {
    const response = await fetch(`${base()}${url}`, {
      method,
      headers: { ...(token === undefined ? {} : { 'x-api-token': token }), ...(body === undefined && payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(payload !== undefined ? { body: payload } : body !== undefined ? { body: JSON.stringify(body) } : {}),
    })
    const text = await response.text()
    const isJson = (response.headers.get('content-type') ?? '').startsWith('application/json')
    return { status: response.status, body: isJson ? JSON.parse(text) : text, headers: Object.fromEntries(response.headers) }
  }
}

/** The body of a 200 answer, typed; any other answer fails the test, showing its body. */
export function ok<A extends { status: number; body: unknown }>(answer: A): Extract<A, { status: 200 }>['body'] {
  assert.equal(answer.status, 200, JSON.stringify(answer.body))
  return answer.body as Extract<A, { status: 200 }>['body']
}

/** The error body of a refused answer (any status but 200), typed; a 200 fails the test. */
export function refused<A extends { status: number; body: unknown }>(answer: A): Exclude<A, { status: 200 }>['body'] {
  assert.notEqual(answer.status, 200, `accepted: ${JSON.stringify(answer.body)}`)
  return answer.body as Exclude<A, { status: 200 }>['body']
}

/** Every line of the token's statement, newest first as the API lists them, walking the pages `limit` at a time. */
export async function statementLines(api: TypedApi, token: string, query: `&${string}` | '' = '', limit = 100): Promise<BalanceTransaction[]> {
  const lines: BalanceTransaction[] = []
  let cursor: string | null = null
  do {
    const url: `/api/balance-transactions?${string}` = `/api/balance-transactions?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
    const page = ok(await api.get(url, { token }))
    lines.push(...page.balance_transactions)
    cursor = page.next_cursor
  } while (cursor)
  return lines
}

/**
 * A list's filters checked as every list of the API checks them: each query refused with 400
 * invalid_request naming its parameter, and the list without a token with 401 token_missing.
 */
export async function assertRefusedFilters(request: Transport, path: string, token: string, refusals: Array<[query: string, param: string]>) {
  for (const [query, param] of refusals) {
    const refused = await request({ method: 'GET', url: `${path}${query}`, token })
    assert.deepEqual([refused.status, refused.body.code, refused.body.param], [400, 'invalid_request', param], query)
  }
  const anonymous = await request({ method: 'GET', url: path })
  assert.deepEqual([anonymous.status, anonymous.body.code], [401, 'token_missing'])
}
