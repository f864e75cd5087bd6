export declare const LISTEN_USER_AGENT = "svc-checkout-sdk-listen/2";
export interface ListenOptions {
    apiUrl: string;
    apiKey: string;
    forwardTo: string;
    /** The forwarder's signing secret; asked for once the service has accepted the key and its scope. */
    secret: () => string;
    /** Only these event types are forwarded (default: every one). */
    events?: readonly string[];
    /** Resume after this event id (a number printed in [brackets] by a previous run). */
    after?: number;
    print: (line: string) => void;
    signal: AbortSignal;
    /** Attempts per event before it is given up and reported (default 3). */
    attempts?: number;
    /** Wait before the first retry of a forward and the first reconnect (default 1000 ms), doubling to 30 s. */
    backoffMs?: number;
    /** Failed connections in a row after which listening stops (default 10). */
    maxReconnects?: number;
    /** Each forward's timeout (default 10 000 ms). */
    timeoutMs?: number;
}
/** The service refused the key for the stream (unknown, revoked, or without transactions:read): reconnecting cannot help. */
export declare class ListenRefused extends Error {
    readonly status: number;
    readonly code: string;
    constructor(message: string, status: number, code: string);
}
/**
 * Checks that the service accepts the key for the stream (it is valid and has transactions:read)
 * without listening: what `--print-secret` does before it prints anything.
 */
export declare function checkStreamAccess(apiUrl: string, apiKey: string, signal: AbortSignal): Promise<void>;
/**
 * Listens until `signal` aborts (resolves), the service refuses the key (ListenRefused), or it cannot
 * be reached `maxReconnects` times in a row (throws). Events are forwarded one at a time, in order;
 * after a dropped connection the stream resumes after the last event handled, so none is missed and
 * none is forwarded twice. The secret is printed once, after the service has accepted the key.
 */
export declare function listen(options: ListenOptions): Promise<void>;
