// Ships each type declaration once. tsup writes every declaration twice, for
// the ESM build (`.d.ts`) and the CommonJS one (`.d.cts`), the same text under
// two names: half the package's declarations on disk. The CommonJS files stay
// whole; each ESM entry's `.d.ts` becomes one line re-exporting its `.d.cts`
// (an ES module may take a CommonJS module's named exports, the reverse is
// not allowed), and the ESM chunks go. Both conditions then name the very
// same declarations. Run after tsup and scripts/dts-augmentations.mjs (npm
// run build does).
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const dist = new URL('../dist/', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** Every ESM entry's declaration file (`./dist/x.d.ts`) and its CommonJS twin, from package.json `exports`. */
const entries = Object.values(pkg.exports).flatMap((e) => {
  const esm = e?.import?.types;
  const cjs = e?.require?.types;
  return typeof esm === 'string' && typeof cjs === 'string' ? [[esm.replace('./dist/', ''), cjs.replace('./dist/', '')]] : [];
});
if (!entries.some(([esm]) => esm === 'index.d.ts')) throw new Error('package.json exports name no ./dist/index.d.ts');

const kept = new Set(entries.map(([esm]) => esm));
let removed = 0;
for (const file of readdirSync(dist)) {
  if (!file.endsWith('.d.ts') || kept.has(file)) continue;
  rmSync(new URL(file, dist));
  removed++;
}
for (const [esm, cjs] of entries) {
  if (!readdirSync(dist).includes(cjs)) throw new Error(`dist/${cjs} is missing`);
  writeFileSync(new URL(esm, dist), `export * from './${cjs.replace(/\.d\.cts$/, '.cjs')}';\n`);
}
console.log(`dist: ${entries.length} ESM declaration entries re-export their .d.cts; ${removed} duplicate chunks removed`);
