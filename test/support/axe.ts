import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

// axe-core run inside the page as the customer's browser sees it. The source goes in through the
// DevTools protocol (page.evaluate), which the pages' strict CSP does not govern, so the pages keep
// their real headers under test.
const AXE_SOURCE = readFileSync(createRequire(__filename).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Emulates a colour scheme and waits until the page follows it: the dashboard's components (Radix
 * Themes) take light or dark as a class its script sets when the media query changes, a render later
 * than the page's own CSS; pages without them follow at once.
 */
export async function showColorScheme(page: Page, colorScheme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme });
  type PageGlobals = { document: { querySelector(s: string): { classList: { contains(c: string): boolean } } | null } };
  await page.waitForFunction((scheme) => {
    const theme = (globalThis as unknown as PageGlobals).document.querySelector('.radix-themes');
    return !theme || theme.classList.contains(scheme);
  }, colorScheme);
}

/** The serious and critical findings on the page as it is now, in the colour scheme asked for. */
export async function seriousFindings(page: Page, colorScheme: 'light' | 'dark'): Promise<string[]> {
  await showColorScheme(page, colorScheme);
  // The callbacks run in the page, where axe is a global; this file is compiled without the DOM's types.
  type PageGlobals = { axe?: { run: (ctx: unknown, options: object) => Promise<{ violations: AxeViolation[] }> }; document: unknown };
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const g = globalThis as unknown as PageGlobals;
    return (await g.axe!.run(g.document, { resultTypes: ['violations'] })).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${colorScheme} ${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/** 0 serious or critical findings in light and in dark mode. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  const findings = [...(await seriousFindings(page, 'light')), ...(await seriousFindings(page, 'dark'))];
  expect(findings, `${what}: axe-core findings`).toEqual([]);
  await showColorScheme(page, 'light');
}

/**
 * Until the page's finite animations are over: axe reads colours as they are, and a dialog fading in
 * (Radix Themes' open animation) has a translucent button whose contrast is not the one people read.
 * Endless ones (a skeleton's shimmer, a spinner) are no transition and are not waited for.
 */
export async function animationsSettled(page: Page): Promise<void> {
  type PageGlobals = {
    document: { getAnimations(): { playState: string; effect: { getTiming(): { iterations?: number } } | null }[] };
  };
  await page.waitForFunction(() =>
    (globalThis as unknown as PageGlobals).document
      .getAnimations()
      .every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity),
  );
}

/** Every axe-core finding, whatever its impact, in light and in dark: the dashboard's bar is none at all. */
export async function expectNoAxeViolations(page: Page, what: string): Promise<void> {
  const findings: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await showColorScheme(page, colorScheme);
    await animationsSettled(page);
    if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
    type PageGlobals = { axe: { run: (ctx: unknown, options: object) => Promise<{ violations: AxeViolation[] }> }; document: unknown };
    const violations = await page.evaluate(async () => {
      const g = globalThis as unknown as PageGlobals;
      return (await g.axe.run(g.document, { resultTypes: ['violations'] })).violations;
    });
    findings.push(
      ...violations.map((v) => `${colorScheme} ${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
    );
  }
  expect(findings, `${what}: axe-core findings`).toEqual([]);
  await showColorScheme(page, 'light');
}

/**
 * axe-core's target-size (WCAG 2.2, 2.5.8: every control at least 24 by 24 px, or spaced as if), which
 * axe leaves off by default: none of its findings on the page as it is now.
 */
export async function expectTargetSize(page: Page, what: string): Promise<void> {
  type PageGlobals = { axe: { run: (ctx: unknown, options: object) => Promise<{ violations: AxeViolation[] }> }; document: unknown };
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const g = globalThis as unknown as PageGlobals;
    return (await g.axe.run(g.document, { runOnly: { type: 'rule', values: ['target-size'] }, resultTypes: ['violations'] })).violations;
  });
  const findings = violations.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  expect(findings, `${what}: axe-core target-size findings`).toEqual([]);
}
