"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.createSvcClient = createSvcClient;
const openapi_fetch_1 = __importDefault(require("openapi-fetch"));
const lists_js_1 = require("./lists.js");
const transport_js_1 = require("./transport.js");
/** A typed client of the merchant API v1. `await svc.POST('/api/v1/checkout/sessions', { body })` answers `{ data, response }`. */
function createSvcClient(options) {
    const api = (0, openapi_fetch_1.default)({
        baseUrl: options.baseUrl.replace(/\/+$/, ''),
        headers: { authorization: `Bearer ${options.apiKey}` },
        fetch: (0, transport_js_1.retryingFetch)(options),
    });
    // openapi-fetch answers { data } or { error }; the retrying fetch throws before there is an error
    // to answer, so only data comes back.
    const call = (method) => async (url, init) => {
        const { data, response } = await api[method](url, init);
        return { data, response };
    };
    const GET = call('GET');
    async function* list(path, query = {}, perRequest = {}) {
        const key = lists_js_1.LIST_ITEMS[path];
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
