import { Table } from '@radix-ui/themes';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

// Bar charts of money over days (the home page's volume, the Money page's payouts), drawn by
// recharts with axes and a tooltip. The picture is for the eye: it is hidden from screen readers,
// who read the same numbers in the table below it (open to everyone under "as a table"), and its
// bars' height is a picture only, never a sum shown as money.

export interface ChartDay {
  /** YYYY-MM-DD (UTC). */
  day: string;
  /** The bar's height. */
  value: number;
  /** The day's money in words (every asset, formatted), shown in the tooltip and the table. */
  amount: string;
  /** How many payments (or payouts) the day had. */
  count: number;
}

const shortDay = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });

function DayTooltip({
  active,
  payload,
  countLabel,
}: {
  active?: boolean;
  payload?: readonly { payload?: ChartDay }[];
  countLabel: string;
}) {
  const d = payload?.[0]?.payload;
  if (!active || !d) return null;
  return (
    <div className="chart-tooltip">
      <strong>{shortDay(d.day)}</strong>
      <br />
      {d.amount}
      <br />
      {d.count} {countLabel}
    </div>
  );
}

export function DayChart(props: {
  title: string;
  caption: string;
  days: ChartDay[];
  amountLabel: string;
  countLabel: string;
  testId: string;
}) {
  return (
    <figure className="chart-figure" data-testid={props.testId}>
      <div className="chart" aria-hidden="true">
        <ResponsiveContainer width="100%" height={200}>
          <BarChart data={props.days} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} accessibilityLayer={false}>
            <CartesianGrid vertical={false} className="chart-grid" />
            <XAxis dataKey="day" tickFormatter={shortDay} minTickGap={24} tickLine={false} className="chart-axis" />
            <YAxis
              width={44}
              tickFormatter={(v: number) => compact.format(v)}
              allowDecimals={false}
              tickLine={false}
              className="chart-axis"
            />
            <Tooltip
              cursor={{ className: 'chart-cursor' }}
              content={<DayTooltip countLabel={props.countLabel} />}
              isAnimationActive={false}
            />
            <Bar dataKey="value" className="chart-bar" isAnimationActive={false} minPointSize={(v) => (Number(v) > 0 ? 2 : 0)} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <figcaption>{props.caption}</figcaption>
      <details>
        <summary>The chart’s numbers as a table</summary>
        {/* Radix Themes' table parts in our own focusable region: ui.tsx's ScrollTable says why. */}
        <div
          className="table-scroll rt-TableRoot rt-r-size-1 rt-variant-ghost"
          role="region"
          aria-label={`${props.title}, scrollable`}
          tabIndex={0}
        >
          <table className="rt-TableRootTable">
            <caption className="visually-hidden">{props.title}</caption>
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeaderCell scope="col">Day (UTC)</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell scope="col">{props.amountLabel}</Table.ColumnHeaderCell>
                <Table.ColumnHeaderCell scope="col">
                  {props.countLabel[0]!.toUpperCase() + props.countLabel.slice(1)}
                </Table.ColumnHeaderCell>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {props.days.map((d) => (
                <Table.Row key={d.day}>
                  <Table.RowHeaderCell>{d.day}</Table.RowHeaderCell>
                  <Table.Cell>{d.amount}</Table.Cell>
                  <Table.Cell>{d.count}</Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </table>
        </div>
      </details>
    </figure>
  );
}
