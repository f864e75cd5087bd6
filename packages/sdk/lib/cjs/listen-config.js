"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.forwarderId = void 0;
exports.listenConfigPath = listenConfigPath;
exports.forwarderSecret = forwarderSecret;
const node_fs_1 = require("node:fs");
const node_os_1 = require("node:os");
const node_path_1 = __importDefault(require("node:path"));
const webhooks_js_1 = require("./webhooks.js");
/** --config, else SVC_LISTEN_CONFIG, else $XDG_CONFIG_HOME/svc-checkout/listen.json (~/.config by default). */
function listenConfigPath(flag, env) {
    if (flag)
        return node_path_1.default.resolve(flag);
    if (env.SVC_LISTEN_CONFIG)
        return node_path_1.default.resolve(env.SVC_LISTEN_CONFIG);
    const base = env.XDG_CONFIG_HOME || node_path_1.default.join(env.HOME || (0, node_os_1.homedir)(), '.config');
    return node_path_1.default.join(base, 'svc-checkout', 'listen.json');
}
/** What names a forwarder in the file: where it reads from and where it forwards to. */
const forwarderId = (apiUrl, forwardTo) => `${apiUrl.replace(/\/+$/, '')} -> ${forwardTo}`;
exports.forwarderId = forwarderId;
function read(file) {
    let text;
    try {
        text = (0, node_fs_1.readFileSync)(file, 'utf8');
    }
    catch (err) {
        if (err.code === 'ENOENT')
            return { forwarders: {} };
        throw err;
    }
    const parsed = JSON.parse(text);
    return { forwarders: parsed.forwarders ?? {} };
}
/** The forwarder's secret from the file, or a new one written to it (atomically, mode 0600). */
function forwarderSecret(file, id) {
    const config = read(file);
    const known = config.forwarders[id]?.secret;
    if (known)
        return { secret: known, created: false };
    const secret = (0, webhooks_js_1.newSigningSecret)();
    config.forwarders[id] = { secret, createdAt: new Date().toISOString() };
    (0, node_fs_1.mkdirSync)(node_path_1.default.dirname(file), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.tmp`;
    (0, node_fs_1.writeFileSync)(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
    (0, node_fs_1.chmodSync)(temporary, 0o600);
    (0, node_fs_1.renameSync)(temporary, file);
    return { secret, created: true };
}
