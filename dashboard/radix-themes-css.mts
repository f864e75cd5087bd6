import type { Plugin } from 'vite';

// Radix Themes ships one stylesheet for all its components (components.css: 420 KiB) and one for its
// layout props (utilities.css: margins, widths; 250 KiB), every rule repeated for five screen widths.
// The dashboard uses a dozen of its components and never a prop that changes with the screen's width,
// so the build keeps only what it can use: the rules of the components below and the layout props,
// without the per-width copies. The stylesheet blocks the first paint, and a
// throttled phone parses every byte of it before it shows anything (docs/dashboard.md).

/**
 * The Radix Themes components (and their shared bases) no page uses, nor any component it uses (a
 * button's spinner is a Flex): their rules are dropped. test/dashboard/assets.test.ts fails when the
 * code names a class whose rules went.
 */
const UNUSED = [
  'Avatar',
  'BaseCheckbox',
  'BaseMenu',
  'BaseRadio',
  'BaseTabList',
  'Blockquote',
  'Box',
  'CheckboxCard',
  'CheckboxCards',
  'CheckboxGroup',
  'CheckboxRoot',
  'Code',
  'Container',
  'ContextMenu',
  'DataList',
  'DropdownMenu',
  'Em',
  'Grid',
  'HoverCard',
  'Inset',
  'Link',
  'PopoverContent',
  'PopperContent',
  'Progress',
  'Quote',
  'RadioCards',
  'RadioGroup',
  'ScrollArea',
  'Section',
  'SegmentedControl',
  'Select',
  'Separator',
  'Slider',
  'Strong',
  'Switch',
  'TabNav',
  'Tabs',
  'TextArea',
  'ThemePanel',
  'Tooltip',
];
const UNUSED_CLASS = new RegExp(`\\.rt-(?:${UNUSED.join('|')})(?![a-z])`);
/** A class that applies from a screen width up (`.sm\:rt-r-size-2`): a responsive prop's. */
const RESPONSIVE_CLASS = /\.(?:xs|sm|md|lg|xl)\\:/;

interface Block {
  prelude: string;
  /** Inside the braces; null for a statement ending in `;`. */
  body: string | null;
}

/** The top-level rules and at-rules of a stylesheet (comments dropped; braces in strings respected). */
function blocks(css: string): Block[] {
  const out: Block[] = [];
  let i = 0;
  let start = 0;
  let depth = 0;
  let open = -1;
  while (i < css.length) {
    const c = css[i]!;
    if (c === '/' && css[i + 1] === '*') {
      const end = css.indexOf('*/', i + 2);
      i = end < 0 ? css.length : end + 2;
      continue;
    }
    if (c === '"' || c === "'") {
      i = css.indexOf(c, i + 1) + 1 || css.length;
      continue;
    }
    if (c === '{') {
      if (depth === 0) open = i;
      depth++;
    } else if (c === '}') {
      depth--;
      if (depth === 0) {
        out.push({
          prelude: css
            .slice(start, open)
            .replace(/\/\*[\s\S]*?\*\//g, '')
            .trim(),
          body: css.slice(open + 1, i),
        });
        start = i + 1;
      }
    } else if (c === ';' && depth === 0) {
      out.push({ prelude: css.slice(start, i).trim(), body: null });
      start = i + 1;
    }
    i++;
  }
  return out;
}

/** Whether a selector list applies only to components no page uses. */
const unusedRule = (selectors: string) => selectors.split(',').every((s) => UNUSED_CLASS.test(s));

/** The stylesheet without the unused components' rules and the per-width copies. */
export function trimThemesCss(css: string): string {
  return blocks(css)
    .map(({ prelude, body }) => {
      if (body === null) return `${prelude};`;
      if (prelude.startsWith('@media') || prelude.startsWith('@supports')) {
        const inner = blocks(body);
        // A width's block holds only responsive props' rules; anything else in one is kept.
        if (/min-width/.test(prelude) && inner.every((b) => RESPONSIVE_CLASS.test(b.prelude))) return '';
        const kept = trimThemesCss(body);
        return kept ? `${prelude}{${kept}}` : '';
      }
      if (prelude.startsWith('@')) return `${prelude}{${body}}`;
      return unusedRule(prelude) ? '' : `${prelude}{${body}}`;
    })
    .join('');
}

export function radixThemesCss(): Plugin {
  return {
    name: 'radix-themes-css',
    enforce: 'pre',
    transform(code, id) {
      if (!/@radix-ui[\\/]themes[\\/](components|utilities)\.css$/.test(id.split('?')[0]!)) return null;
      return { code: trimThemesCss(code), map: null };
    },
  };
}
