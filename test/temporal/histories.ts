import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { expect } from 'vitest';
import { workflowBundle } from '../support/harness';

// Determinism guard: histories of real runs are replayed against the current workflow code, one
// committed history per scenario of each workflow type (test/fixtures/histories), so a change that
// would break running workflows fails CI. `npm run histories:record` records them again from the
// current code. Before the first release there is one version of each workflow, and a change that
// alters the commands re-records them; after it, see the versioning policy in docs/decisions/0008-one-workflow-version.md.
export const HISTORIES_DIR = path.resolve(__dirname, '../fixtures/histories');
const RECORD = process.env.RECORD_HISTORIES;
// protobufjs' own object form (64-bit ints and bytes as strings) round-trips exactly.
const History = temporal.api.history.v1.History;
const HISTORY_JSON = { longs: String, enums: String, bytes: String };

type History = temporal.api.history.v1.IHistory;

async function replay(histories: { workflowId: string; history: History }[]): Promise<number> {
  const results = Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories);
  let count = 0;
  for await (const result of results) {
    expect(result.error, `replay of ${result.workflowId}`).toBeUndefined();
    count++;
  }
  return count;
}

/**
 * Replays the histories of runs this test just made (so the current code replays its own runs), and
 * under RECORD_HISTORIES=1 writes them as `<prefix>-<scenario>.json`.
 */
export async function replayRuns(client: Client, prefix: string, runs: Record<string, string>): Promise<void> {
  const histories = await Promise.all(
    Object.entries(runs).map(async ([name, workflowId]) => ({
      name,
      workflowId,
      history: await client.workflow.getHandle(workflowId).fetchHistory(),
    })),
  );
  expect(await replay(histories)).toBe(histories.length);
  if (!RECORD) return;
  mkdirSync(HISTORIES_DIR, { recursive: true });
  for (const h of histories) {
    const json = History.toObject(History.fromObject(h.history), HISTORY_JSON);
    writeFileSync(path.join(HISTORIES_DIR, `${prefix}-${h.name}.json`), JSON.stringify(json, null, 1));
  }
}

/** Replays every committed history; returns the file names replayed. */
export async function replayCommitted(): Promise<string[]> {
  const files = readdirSync(HISTORIES_DIR).filter((f) => f.endsWith('.json'));
  const histories = files.map((f) => ({
    workflowId: f,
    history: History.fromObject(JSON.parse(readFileSync(path.join(HISTORIES_DIR, f), 'utf8'))),
  }));
  expect(await replay(histories)).toBe(files.length);
  return files;
}
