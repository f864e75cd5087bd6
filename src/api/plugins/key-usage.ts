/** At most one last-use write per key per this long, per API process. */
export const KEY_USE_PRECISION_MS = 60_000;
// Keys seen per process are bounded by the keys that exist; past this the memory is simply reset.
const MAX_TRACKED_KEYS = 10_000;

/**
 * Records that a key was used, off the request path (a read must not write). A lookup
 * answers without waiting for the write, and a key used a thousand times a minute is written once
 * a minute per process; the SQL's own condition keeps several processes to about the same. A failed
 * write loses one "last used" mark, never a request.
 */
export function keyUsageRecorder(write: (keyId: string) => Promise<void>, onError: (err: unknown) => void, now: () => number = Date.now) {
  const lastWrite = new Map<string, number>();
  return (keyId: string): void => {
    const at = now();
    const last = lastWrite.get(keyId);
    if (last !== undefined && at - last < KEY_USE_PRECISION_MS) return;
    if (lastWrite.size >= MAX_TRACKED_KEYS) lastWrite.clear();
    lastWrite.set(keyId, at);
    write(keyId).catch(onError);
  };
}
