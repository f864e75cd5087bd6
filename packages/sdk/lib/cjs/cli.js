"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.EXIT_USAGE = exports.EXIT_FAILED = exports.EXIT_OK = void 0;
exports.runCli = runCli;
const node_fs_1 = require("node:fs");
const node_util_1 = require("node:util");
const events_js_1 = require("./events.js");
const listen_js_1 = require("./listen.js");
const listen_config_js_1 = require("./listen-config.js");
// The package's command line: `npx svc-checkout-sdk listen --forward-to <url>`, for integrators on
// their own machines. It needs the service's address and a merchant API key with transactions:read;
// the key comes from the environment or a file, never from a flag, which the shell history and the
// process list would keep.
exports.EXIT_OK = 0;
exports.EXIT_FAILED = 1;
exports.EXIT_USAGE = 2;
const USAGE = `Usage: svc-checkout-sdk listen --forward-to <url> [options]

Forwards your events to a local URL, signed as the service signs its webhooks, with a signing secret
of this forwarder's own (made once, kept in the config file, the same on every run).

Options:
  --forward-to <url>     your local webhook URL, e.g. http://localhost:8000/hooks (required)
  --events <types>       forward only these event types, comma-separated (default: every event)
  --print-secret         print the forwarder's signing secret and exit (after checking the key)
  --config <path>        where the secrets are kept (env SVC_LISTEN_CONFIG;
                         default $XDG_CONFIG_HOME/svc-checkout/listen.json or ~/.config/…)
  --api-url <url>        the service (env SVC_URL; default http://127.0.0.1:3000)
  --api-key-file <path>  read the API key from this file (env SVC_API_KEY_FILE; default env SVC_API_KEY)
  --after <id>           resume after this event id (the number in [brackets] of a previous run)
  -h, --help             this text

The API key needs the scope transactions:read. Exit status: 0 stopped (Ctrl-C) or printed;
1 the service refused the key or could not be reached; 2 bad usage.`;
class UsageError extends Error {
}
function httpUrl(flag, value) {
    let url;
    try {
        url = new URL(value);
    }
    catch {
        throw new UsageError(`${flag} must be an http(s) URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new UsageError(`${flag} must be an http(s) URL`);
    return value.replace(/\/+$/, '') || value;
}
function apiKeyOf(file, env) {
    const named = file ?? (env.SVC_API_KEY ? undefined : env.SVC_API_KEY_FILE || undefined);
    let key = env.SVC_API_KEY;
    if (named !== undefined) {
        try {
            key = (0, node_fs_1.readFileSync)(named, 'utf8').trim();
        }
        catch (err) {
            throw new UsageError(`cannot read the API key file ${named} (${err.code ?? 'error'})`);
        }
    }
    if (!key)
        throw new UsageError('no API key: set SVC_API_KEY, or pass --api-key-file <path> (or SVC_API_KEY_FILE)');
    // The message never repeats the key: a wrong one may still be somebody's secret.
    if (!/^svc_live_\S+$/.test(key))
        throw new UsageError('the API key must be a merchant API key (svc_live_…)');
    return key;
}
async function runCli(argv, io) {
    const [command, ...rest] = argv;
    if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
        io.stdout(USAGE);
        return command === undefined ? exports.EXIT_USAGE : exports.EXIT_OK;
    }
    try {
        if (command !== 'listen')
            throw new UsageError(`unknown command ${JSON.stringify(command)}; the one command is listen`);
        const { values } = (0, node_util_1.parseArgs)({
            args: rest,
            strict: true,
            options: {
                'forward-to': { type: 'string' },
                events: { type: 'string', multiple: true },
                'print-secret': { type: 'boolean' },
                config: { type: 'string' },
                'api-url': { type: 'string' },
                'api-key-file': { type: 'string' },
                after: { type: 'string' },
                help: { type: 'boolean', short: 'h' },
            },
        });
        if (values.help) {
            io.stdout(USAGE);
            return exports.EXIT_OK;
        }
        if (!values['forward-to'])
            throw new UsageError("required option '--forward-to <url>' not specified");
        const forwardTo = httpUrl('--forward-to', values['forward-to']);
        const apiUrl = httpUrl('--api-url/SVC_URL', values['api-url'] ?? io.env.SVC_URL ?? `http://127.0.0.1:${io.env.PORT || 3000}`);
        const events = (values.events ?? [])
            .flatMap((v) => v.split(','))
            .map((v) => v.trim())
            .filter(Boolean);
        const unknown = events.filter((e) => !events_js_1.WEBHOOK_EVENT_TYPES.includes(e));
        if (unknown.length > 0)
            throw new UsageError(`unknown event type(s) ${unknown.join(', ')}; known: ${events_js_1.WEBHOOK_EVENT_TYPES.join(', ')}`);
        if (values.after !== undefined && !/^\d{1,15}$/.test(values.after))
            throw new UsageError('--after must be an event id (a number)');
        const apiKey = apiKeyOf(values['api-key-file'], io.env);
        const configFile = (0, listen_config_js_1.listenConfigPath)(values.config, io.env);
        const secret = () => (0, listen_config_js_1.forwarderSecret)(configFile, (0, listen_config_js_1.forwarderId)(apiUrl, forwardTo)).secret;
        const { hostname, protocol } = new URL(apiUrl);
        if (protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(hostname)) {
            io.stderr(`warning: sending your API key over plain http to ${hostname}; use https outside a trusted network`);
        }
        if (values['print-secret']) {
            // The key and its scope first: a key that may not read the stream gets no secret.
            await (0, listen_js_1.checkStreamAccess)(apiUrl, apiKey, io.signal);
            io.stdout(secret());
            return exports.EXIT_OK;
        }
        await (0, listen_js_1.listen)({
            apiUrl,
            apiKey,
            forwardTo,
            secret,
            events,
            ...(values.after !== undefined ? { after: Number(values.after) } : {}),
            print: io.stdout,
            signal: io.signal,
            // Not an option of the command: tests shorten the pauses between retries and reconnects with it.
            ...(io.env.SVC_LISTEN_BACKOFF_MS ? { backoffMs: Number(io.env.SVC_LISTEN_BACKOFF_MS) } : {}),
        });
        return exports.EXIT_OK;
    }
    catch (err) {
        if (err instanceof UsageError || err.code?.toString().startsWith('ERR_PARSE_ARGS')) {
            io.stderr(`svc-checkout-sdk: ${err.message}`);
            io.stderr("Run 'svc-checkout-sdk listen --help' for the options.");
            return exports.EXIT_USAGE;
        }
        if (err instanceof listen_js_1.ListenRefused) {
            io.stderr(`error: ${err.message}`);
            return exports.EXIT_FAILED;
        }
        const cause = err.cause;
        io.stderr(`error: ${err.message}${typeof cause?.code === 'string' ? ` (${cause.code})` : ''}`);
        return exports.EXIT_FAILED;
    }
}
