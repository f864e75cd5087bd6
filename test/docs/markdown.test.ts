import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { describe, expect, it } from 'vitest';
import { exampleBlock, guideFiles, markdownUnder, ROOT } from '../support/guides';

// Every Markdown file of the project, read by a CommonMark parser (micromark, through
// mdast-util-from-markdown) as GitHub and editors read it. A fence that does not close (a closing
// fence with text after it is no closing fence) turns the rest of a file into one code block while
// the source still looks right; a link to a file that moved points nowhere. Both fail here.

/** What these checks read of the parser's tree (mdast). */
interface MdNode {
  type: string;
  position?: { start: { line: number }; end: { line: number } };
  children?: MdNode[];
  value?: string;
  url?: string;
}

const files = markdownUnder('');
const parse = (file: string): { text: string; lines: string[]; tree: MdNode } => {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  return { text, lines: text.split('\n'), tree: fromMarkdown(text) };
};

function nodesOf(tree: MdNode, type: string): MdNode[] {
  const found: MdNode[] = [];
  const walk = (node: MdNode) => {
    if (node.type === type) found.push(node);
    for (const child of node.children ?? []) walk(child);
  };
  walk(tree);
  return found;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** A fenced block as the parser made it: its first and last lines (1-based) and the fence that opened it. */
function fencedBlocks(lines: string[], tree: MdNode): { start: number; end: number; fence: string }[] {
  return nodesOf(tree, 'code')
    .map((node) => ({ node, open: FENCE.exec(lines[node.position!.start.line - 1]!.replace(/^(\s*>\s?)+|^\s+/, '')) }))
    .filter(({ open }) => open !== null)
    .map(({ node, open }) => ({ start: node.position!.start.line, end: node.position!.end.line, fence: open![1]! }));
}

/** The lines a reader who only looks for fence markers takes for code: from an opening fence to the next line that starts with it. */
function codeLinesByEye(lines: string[]): Set<number> {
  const inCode = new Set<number>();
  let fence: string | null = null;
  lines.forEach((line, i) => {
    const marker = FENCE.exec(line.trimStart())?.[1];
    if (fence === null) {
      if (marker) {
        fence = marker;
        inCode.add(i + 1);
      }
    } else {
      inCode.add(i + 1);
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = null;
    }
  });
  return inCode;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const headingText = (node: MdNode): string => node.value ?? (node.children ?? []).map(headingText).join('');

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const heading of nodesOf(parse(file).tree, 'heading')) {
    const base = anchorOf(headingText(heading));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

describe('every Markdown file parses as CommonMark as it reads', () => {
  it('finds the project’s documents and none of the installed packages’', () => {
    expect(files).toContain('README.md');
    expect(files).toContain('docs/architecture.md');
    expect(files).toContain('packages/sdk/README.md');
    expect(files.filter((f) => /node_modules|^\.tools|^\.data/.test(f))).toEqual([]);
  });

  it.each(files)('%s: every fenced block closes, and no line that looks like a closing fence is read as code', (file) => {
    const { lines, tree } = parse(file);
    for (const block of fencedBlocks(lines, tree)) {
      const last = lines[block.end - 1]!.trimStart();
      const closes = last.startsWith(block.fence[0]!) && /^(`+|~+)\s*$/.test(last) && last.trim().length >= block.fence.length;
      expect(closes && block.end > block.start, `${file}:${block.start}: the block opened here never closes`).toBe(true);
      for (let n = block.start + 1; n < block.end; n++) {
        const inside = lines[n - 1]!.trimStart();
        expect(
          inside.startsWith(block.fence),
          `${file}:${n}: a fence with text after it does not close the block of line ${block.start}`,
        ).toBe(false);
      }
    }
  });

  it.each(files)('%s: every heading outside code, as the source shows it, is a heading to the parser', (file) => {
    const { lines, tree } = parse(file);
    const byEye = codeLinesByEye(lines);
    const parsed = new Set(nodesOf(tree, 'heading').map((h) => h.position!.start.line));
    const expected = lines.flatMap((line, i) => (/^#{1,6} \S/.test(line) && !byEye.has(i + 1) ? [i + 1] : []));
    expect(expected.filter((n) => !parsed.has(n)).map((n) => `${file}:${n}: ${lines[n - 1]}`)).toEqual([]);
  });

  it.each(files)('%s: every relative link points at a file or folder of the repository, and its anchor at a heading', (file) => {
    const { tree } = parse(file);
    const targets = [...nodesOf(tree, 'link'), ...nodesOf(tree, 'image'), ...nodesOf(tree, 'definition')].map(
      (n) => (n as { url: string }).url,
    );
    const broken: string[] = [];
    for (const url of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('//')) continue;
      const [rawPath, anchor] = url.split('#') as [string, string | undefined];
      const target = rawPath === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(rawPath)));
      if (target.startsWith('..') || !existsSync(path.join(ROOT, target))) {
        broken.push(`${url}: no ${target}`);
        continue;
      }
      if (anchor && target.endsWith('.md') && statSync(path.join(ROOT, target)).isFile() && !anchorsOf(target).has(anchor)) {
        broken.push(`${url}: ${target} has no heading #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the guides’ runnable examples', () => {
  // A marker names the test that runs its block; that test must exist and ask for the block by name.
  const markers = guideFiles().flatMap((file) =>
    [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/<!-- example: (\S+) \(([^)]*)\) -->/g)].map((m) => ({
      file,
      name: m[1]!,
      note: m[2]!,
    })),
  );

  it('the README and docs/ hold the examples the tests run', () => {
    expect(markers.map((m) => m.name).sort()).toEqual(
      expect.arrayContaining(['express-webhook', 'first-payment', 'listen', 'php-webhook', 'python-webhook', 'sdk-session']),
    );
  });

  it.each(markers)('$file: example $name is one block, run by the test it names', ({ name, note }) => {
    const block = exampleBlock(name);
    expect(block.code.trim().length).toBeGreaterThan(0);
    const runner = /test\/[\w/.-]+\.test\.ts/.exec(note)?.[0];
    expect(runner, `the marker of ${name} names no test file`).toBeDefined();
    expect(existsSync(path.join(ROOT, runner!)), `${runner} exists`).toBe(true);
    expect(readFileSync(path.join(ROOT, runner!), 'utf8')).toMatch(new RegExp(`['\`]${name}['\`]|example: ${name}`));
  });
});
