#!/usr/bin/env node
"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const cli_js_1 = require("./cli.js");
// The package's bin (`npx svc-checkout-sdk …`): the process around runCli, which stops on Ctrl-C.
const stop = new AbortController();
process.once('SIGINT', () => stop.abort()).once('SIGTERM', () => stop.abort());
void (0, cli_js_1.runCli)(process.argv.slice(2), {
    env: process.env,
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
    signal: stop.signal,
}).then((code) => {
    process.exitCode = code;
});
