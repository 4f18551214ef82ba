// Runs some figures of `npm run bench` alone, against the build in dist/ (`npm run build` first):
//   node --expose-gc bench/parts.mjs chain events timeoutAlone
// Prints their rows as the full bench would; writes nothing.
import * as figures from './figures.mjs';
import { printTable } from './lib/table.mjs';

const names = process.argv.slice(2);
const unknown = names.filter((n) => typeof figures[n] !== 'function');
if (names.length === 0 || unknown.length > 0) {
  console.error(`usage: node --expose-gc bench/parts.mjs <figure>... (figures: ${Object.keys(figures).join(', ')})`);
  process.exit(2);
}
const rows = [];
for (const name of names) rows.push(...(await figures[name]()).rows);
printTable(rows);
