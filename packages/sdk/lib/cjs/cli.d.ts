import { type Env } from './listen-config.js';
export declare const EXIT_OK = 0;
export declare const EXIT_FAILED = 1;
export declare const EXIT_USAGE = 2;
export interface CliIo {
    env: Env;
    stdout: (line: string) => void;
    stderr: (line: string) => void;
    signal: AbortSignal;
}
export declare function runCli(argv: string[], io: CliIo): Promise<number>;
