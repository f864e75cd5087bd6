import { type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import { LIST_ITEMS, type ListPath } from './lists.js';
import type { paths } from './schema.js';
import { type PerRequestOptions, type RetryOptions } from './transport.js';
export interface SvcClientOptions extends RetryOptions {
    /** The service's address, e.g. https://checkout.example (no /api/v1). */
    baseUrl: string;
    /** Your live API key (svc_live_…); keep it in your server's environment. */
    apiKey: string;
    /** Another fetch (a proxy's, a test's); default the global one. */
    fetch?: typeof fetch;
}
type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
type PathsWith<M extends HttpMethod> = {
    [P in keyof paths]: paths[P] extends {
        [K in M]: object;
    } ? P : never;
}[keyof paths];
type RequiredKeys<T> = {
    [K in keyof T]-?: object extends Pick<T, K> ? never : K;
}[keyof T];
type InitArg<Init> = RequiredKeys<Init> extends never ? [(Init & PerRequestOptions)?] : [Init & PerRequestOptions];
type Success<R> = R extends {
    data: infer D;
    error?: never;
} ? D : never;
type Answer<Op, Init> = Op extends Record<string | number, unknown> ? Success<FetchResponse<Op, Init, `${string}/${string}`>> : never;
/** What a call answers: the typed body and the raw Response (headers, status). Failures throw. */
export interface SvcResult<D> {
    data: D;
    response: Response;
}
type Method<M extends HttpMethod> = <P extends PathsWith<M>, Init extends MaybeOptionalInit<paths[P], M>>(url: P, ...init: InitArg<Init>) => Promise<SvcResult<Answer<paths[P][M], Init>>>;
type ListOperation<P extends ListPath> = paths[P]['get'];
/** A list's filters: its query parameters but the cursor, which the iterator moves itself. */
export type ListQuery<P extends ListPath> = Omit<NonNullable<NonNullable<ListOperation<P>['parameters']>['query']>, 'cursor'>;
type ListPage<P extends ListPath> = ListOperation<P>['responses'][200]['content']['application/json'];
/** One item of a list: a checkout session of `/api/v1/checkout/sessions`, a settlement of `/api/v1/settlements`. */
export type ListItem<P extends ListPath> = ItemsOf<ListPage<P>, (typeof LIST_ITEMS)[P]>;
type ItemsOf<Page, K> = K extends keyof Page ? (Page[K] extends readonly (infer I)[] ? I : never) : never;
export interface SvcClient {
    GET: Method<'get'>;
    POST: Method<'post'>;
    PUT: Method<'put'>;
    PATCH: Method<'patch'>;
    DELETE: Method<'delete'>;
    /**
     * Every item of a list, page after page (each page fetched, with retries, when the one before is
     * used up): `for await (const session of svc.list('/api/v1/checkout/sessions', { status: ['completed'] }))`.
     */
    list<P extends ListPath>(path: P, query?: ListQuery<P>, options?: PerRequestOptions): AsyncIterableIterator<ListItem<P>>;
}
/** A typed client of the merchant API v1. `await svc.POST('/api/v1/checkout/sessions', { body })` answers `{ data, response }`. */
export declare function createSvcClient(options: SvcClientOptions): SvcClient;
export {};
