import { Table } from '@radix-ui/themes';
import { Children, type ReactNode } from 'react';

/**
 * A table that scrolls sideways on a narrow screen: the scrolling region is named and takes focus,
 * so a keyboard can scroll it too (axe: scrollable-region-focusable). Radix Themes' rows and cells
 * inside; the root is its classes on our own region rather than its Table.Root, whose scroll area
 * neither takes focus nor can carry the page's CSP nonce for the <style> element it writes. A module
 * of its own: Radix's table module brings that scroll area's code along, which the pages without a
 * table (sign-in first) do not fetch.
 */
export function ScrollTable({ label, head, children }: { label: string; head: string[]; children: ReactNode }) {
  // No rows (none yet, or not read yet): no table, whose headings alone say nothing; the page says why.
  if (Children.count(children) === 0) return null;
  return (
    <div className="table-scroll rt-TableRoot rt-r-size-1 rt-variant-ghost" role="region" aria-label={label} tabIndex={0}>
      <table className="rt-TableRootTable">
        <Table.Header>
          <Table.Row>
            {head.map((h, i) => (
              <Table.ColumnHeaderCell scope="col" key={i}>
                {h || <span className="visually-hidden">Actions</span>}
              </Table.ColumnHeaderCell>
            ))}
          </Table.Row>
        </Table.Header>
        <Table.Body>{children}</Table.Body>
      </table>
    </div>
  );
}
