import { describe, expect, it } from 'vitest';
import { csvLine } from '../../src/domain/csv';

// CSV exports reach spreadsheets, which run a cell starting with = + - @ (or a tab or CR) as a formula.
describe('CSV cells', () => {
  it.each(['=1+1', '+1+1', '-1+1', '@SUM(A1)', '\t=1', '\r=1'])('neutralises %j with a leading apostrophe', (value) => {
    expect(csvLine([value])).toMatch(/^"?'/);
  });

  // Compatibility forms a spreadsheet may read as the ASCII sign (Excel in East Asian locales does):
  // checked, and written, in their NFKC form.
  it.each([
    ['＝1+1', "'=1+1"],
    ['﹦1+1', "'=1+1"],
    ['＋1+1', "'+1+1"],
    ['﹢1+1', "'+1+1"],
    ['－1+1', "'-1+1"],
    ['﹣1+1', "'-1+1"],
    ['＠SUM(A1)', "'@SUM(A1)"],
    ['﹫SUM(A1)', "'@SUM(A1)"],
  ])('neutralises the full-width or small form %j like its ASCII sign', (value, written) => {
    expect(csvLine([value])).toBe(`${written}\r\n`);
  });

  it('leaves plain values alone and quotes separators', () => {
    expect(csvLine(['order 42', 'a,b', 'say "hi"', 'SV_abc'])).toBe('order 42,"a,b","say ""hi""",SV_abc\r\n');
  });
});
