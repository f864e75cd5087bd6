import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// The project's written guides as test fixtures: README.md and every Markdown file under docs/.
// Examples and commands live in whichever of them tells the reader about them; the tests that run
// them find them by their marker, wherever a guide moved them.

export const ROOT = path.resolve(__dirname, '../..');

/** Folders no project document lives in: installed packages, downloaded tools, local state, builds. */
const NOT_OURS = new Set(['node_modules', '.tools', '.data', '.git', 'dist', 'coverage', '.artifacts']);

/** Markdown files under `dir` (relative to the root), sorted, skipping folders that are not ours. */
export function markdownUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!NOT_OURS.has(entry.name)) walk(child);
      } else if (entry.isFile() && entry.name.endsWith('.md')) {
        found.push(child);
      }
    }
  };
  walk(dir);
  return found.sort();
}

/** The guides, README.md first: where the examples and the ops command lines are. */
export const guideFiles = (): string[] => ['README.md', ...markdownUnder('docs')];

export const guideText = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

/** Every guide as one text, README.md first. */
export const guidesText = (): string => guideFiles().map(guideText).join('\n');

export interface ExampleBlock {
  /** The guide that holds it, relative to the root. */
  file: string;
  lang: string;
  code: string;
}

/** The fenced block after `<!-- example: <name>` in whichever guide holds it (exactly one must). */
export function exampleBlock(name: string): ExampleBlock {
  const holders = guideFiles().filter((file) => guideText(file).includes(`<!-- example: ${name} `));
  if (holders.length !== 1) throw new Error(`the example ${name} is in ${holders.length} guides (${holders.join(', ')}), not one`);
  const file = holders[0]!;
  const text = guideText(file);
  const block = /```(\w+)\n([\s\S]*?)```/.exec(text.slice(text.indexOf(`<!-- example: ${name} `)));
  if (!block) throw new Error(`${file}: no fenced block after the example marker ${name}`);
  return { file, lang: block[1]!, code: block[2]! };
}
