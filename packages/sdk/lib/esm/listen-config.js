import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { newSigningSecret } from './webhooks.js';
/** --config, else SVC_LISTEN_CONFIG, else $XDG_CONFIG_HOME/svc-checkout/listen.json (~/.config by default). */
export function listenConfigPath(flag, env) {
    if (flag)
        return path.resolve(flag);
    if (env.SVC_LISTEN_CONFIG)
        return path.resolve(env.SVC_LISTEN_CONFIG);
    const base = env.XDG_CONFIG_HOME || path.join(env.HOME || homedir(), '.config');
    return path.join(base, 'svc-checkout', 'listen.json');
}
/** What names a forwarder in the file: where it reads from and where it forwards to. */
export const forwarderId = (apiUrl, forwardTo) => `${apiUrl.replace(/\/+$/, '')} -> ${forwardTo}`;
function read(file) {
    let text;
    try {
        text = readFileSync(file, 'utf8');
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
export function forwarderSecret(file, id) {
    const config = read(file);
    const known = config.forwarders[id]?.secret;
    if (known)
        return { secret: known, created: false };
    const secret = newSigningSecret();
    config.forwarders[id] = { secret, createdAt: new Date().toISOString() };
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, file);
    return { secret, created: true };
}
