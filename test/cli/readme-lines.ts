import { guidesText } from '../support/guides';

// The guides (README.md and docs/) as a test fixture: their shell code blocks, the
// `npm run ops -- …` lines in them, and those lines split into words the way a shell would (quotes,
// trailing comments). The first payment is in the README, every other ops command in
// docs/operations.md: both are read, so a line runs wherever a guide moves it.

/** README.md, then every guide under docs/, as one text. */
export const readmeText = guidesText;

export function shellBlocks(text = readmeText()): string[] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

export interface OpsLine {
  /** The line as the guide writes it, comment included. */
  line: string;
  /** The words after `npm run ops --`. */
  args: string[];
  /** The first two words, e.g. `merchants create`. */
  command: string;
}

export function readmeOpsLines(text = readmeText()): OpsLine[] {
  const lines = shellBlocks(text).flatMap((block) => block.split('\n').map((l) => l.trim()));
  return lines
    .filter((l) => l.startsWith('npm run ops -- '))
    .map((line) => {
      const args = shellWords(line).slice(4);
      return { line, args, command: args.slice(0, 2).join(' ') };
    });
}

/** Splits like POSIX sh for what the guides use: single and double quotes, `#` comments. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quote: '"' | "'" | null = null;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = null;
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word ??= '';
    } else if (/\s/.test(ch)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (ch === '#' && word === null) {
      break;
    } else {
      word = (word ?? '') + ch;
    }
  }
  if (quote) throw new Error(`unbalanced quote in: ${line}`);
  if (word !== null) words.push(word);
  return words;
}
