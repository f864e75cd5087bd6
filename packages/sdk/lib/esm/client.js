import createClient from 'openapi-fetch';
import { LIST_ITEMS } from './lists.js';
import { retryingFetch } from './transport.js';
/** A typed client of the merchant API v1. `await svc.POST('/api/v1/checkout/sessions', { body })` answers `{ data, response }`. */
export function createSvcClient(options) {
    const api = createClient({
        baseUrl: options.baseUrl.replace(/\/+$/, ''),
        headers: { authorization: `Bearer ${options.apiKey}` },
        fetch: retryingFetch(options),
    });
    // openapi-fetch answers { data } or { error }; the retrying fetch throws before there is an error
    // to answer, so only data comes back.
    const call = (method) => async (url, init) => {
        const { data, response } = await api[method](url, init);
        return { data, response };
    };
    const GET = call('GET');
    async function* list(path, query = {}, perRequest = {}) {
        const key = LIST_ITEMS[path];
        let cursor;
        do {
            const { data } = await GET(path, { params: { query: { ...query, ...(cursor ? { cursor } : {}) } }, ...perRequest });
            const page = data;
            for (const item of page[key])
                yield item;
            cursor = page.nextCursor ?? undefined;
        } while (cursor);
    }
    return {
        GET,
        POST: call('POST'),
        PUT: call('PUT'),
        PATCH: call('PATCH'),
        DELETE: call('DELETE'),
        list,
    };
}
