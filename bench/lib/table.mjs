function fmt(x, unit) {
  if (!Number.isFinite(x)) return String(x);
  const digits = unit === 'MB' || Math.abs(x) < 10 ? 1 : 0;
  return `${x.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits })} ${unit}`;
}

function fmtRatio(r) {
  return r >= 0.1 ? r.toFixed(2) : r >= 0.001 ? r.toFixed(4) : r.toExponential(1);
}

/** Prints the rows as a fixed-width table: figure, ours, theirs, ratio, target, met?. */
export function printTable(rows) {
  const cells = [['figure', 'ours', 'theirs', 'vs', 'ratio', 'target', 'met?']];
  for (const r of rows) {
    cells.push([r.figure, fmt(r.ours, r.unit), fmt(r.theirs, r.unit), r.theirsLabel, fmtRatio(r.ratio), r.target, r.target === 'info' ? '' : r.met ? 'yes' : 'NO']);
  }
  const widths = cells[0].map((_, i) => Math.max(...cells.map((c) => c[i].length)));
  for (const [i, c] of cells.entries()) {
    console.log(c.map((s, j) => (j === 1 || j === 2 || j === 4 ? s.padStart(widths[j]) : s.padEnd(widths[j]))).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}
