import { readFileSync, writeFileSync } from 'node:fs';
import type { LabResults } from './run.js';
import { markdownTables } from './table.js';

/** The markers between which the lab's table lives in the docs. */
export const START = '<!-- lab-table:start -->';
export const END = '<!-- lab-table:end -->';

/** The docs file holding the markers: docs/strategies.md, section "What the lab measured". */
export function docsFile(root = '.'): string {
  return `${root}/docs/strategies.md`;
}

/** The text between the markers of `doc`, or undefined when it has none. */
export function tableIn(doc: string): string | undefined {
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) return undefined;
  return doc.slice(a + START.length, b).trim();
}

/** `doc` with the lab's table (from `results`) between its markers. */
export function withTable(doc: string, results: LabResults): string {
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs: markers ${START} … ${END} not found`);
  return `${doc.slice(0, a + START.length)}\n${markdownTables(results)}\n${doc.slice(b)}`;
}

// `node lab-dist/docs.js [results.json]`: writes the table into the docs
if (process.argv[1] !== undefined && /docs\.(js|ts)$/.test(process.argv[1])) {
  const results = JSON.parse(readFileSync(process.argv[2] ?? 'lab-report/results.json', 'utf8')) as LabResults;
  const file = docsFile();
  writeFileSync(file, withTable(readFileSync(file, 'utf8'), results));
  process.stdout.write(`docs: wrote the lab table into ${file}\n`);
}
