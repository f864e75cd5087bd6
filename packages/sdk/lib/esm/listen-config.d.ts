export type Env = Record<string, string | undefined>;
/** --config, else SVC_LISTEN_CONFIG, else $XDG_CONFIG_HOME/svc-checkout/listen.json (~/.config by default). */
export declare function listenConfigPath(flag: string | undefined, env: Env): string;
/** What names a forwarder in the file: where it reads from and where it forwards to. */
export declare const forwarderId: (apiUrl: string, forwardTo: string) => string;
/** The forwarder's secret from the file, or a new one written to it (atomically, mode 0600). */
export declare function forwarderSecret(file: string, id: string): {
    secret: string;
    created: boolean;
};
