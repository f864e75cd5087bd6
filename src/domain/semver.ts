// Plugin versions (the handshake exists from plugin 1.1.0 on). Strict semver 2.0.0 text,
// compared by its precedence rules; build metadata is ignored and a pre-release ranks below its release,
// so 1.1.0-beta.1 is older than 1.1.0.

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  prerelease: string[];
}

const NUMBER = '0|[1-9]\\d{0,8}';
const IDENT = '[0-9A-Za-z-]+';
const SEMVER = new RegExp(`^(${NUMBER})\\.(${NUMBER})\\.(${NUMBER})(?:-(${IDENT}(?:\\.${IDENT})*))?(?:\\+${IDENT}(?:\\.${IDENT})*)?$`);

export function parseSemVer(text: string): SemVer | null {
  const m = SEMVER.exec(text);
  if (!m) return null;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), prerelease: m[4] ? m[4].split('.') : [] };
}

function compareIdentifiers(a: string, b: string): number {
  const an = /^\d+$/.test(a);
  const bn = /^\d+$/.test(b);
  if (an && bn) return Math.sign(Number(a) - Number(b));
  if (an !== bn) return an ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Negative, zero or positive as `a` has lower, equal or higher precedence than `b`. */
export function compareSemVer(a: SemVer, b: SemVer): number {
  const core = Math.sign(a.major - b.major) || Math.sign(a.minor - b.minor) || Math.sign(a.patch - b.patch);
  if (core !== 0) return core;
  // A release outranks any of its pre-releases.
  if (a.prerelease.length === 0 || b.prerelease.length === 0) return Math.sign(b.prerelease.length - a.prerelease.length);
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const c = compareIdentifiers(a.prerelease[i]!, b.prerelease[i]!);
    if (c !== 0) return c;
  }
  return Math.sign(a.prerelease.length - b.prerelease.length);
}

/** Whether `version` is well-formed semver at or above `minimum`. */
export function isAtLeastVersion(version: string, minimum: string): boolean {
  const v = parseSemVer(version);
  const min = parseSemVer(minimum);
  if (!min) throw new Error(`bad minimum version ${minimum}`);
  return v !== null && compareSemVer(v, min) >= 0;
}
