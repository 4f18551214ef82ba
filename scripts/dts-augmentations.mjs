// Points the event-map augmentations of the bundled declaration files at the
// module that declares the map.
//
// Each policy adds its events to `PolicyEventTypes` (lib/events.ts) with
// `declare module '../../lib/events.js' { interface PolicyEventTypes { ... } }`.
// tsup's declaration bundler copies those blocks as written, so in dist/ they
// name a file that does not exist and TypeScript ignores them: `PolicyEvent`
// would lose every policy's events. The map lives in a shared chunk
// (`events-<hash>.d.ts`, exported under a short alias); this rewrites each
// block to augment that chunk under that alias, which TypeScript merges into
// the map itself. Run after tsup (npm run build does).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

const dist = new URL('../dist/', import.meta.url);
const files = readdirSync(dist);
const AUGMENTATION = /declare module '(?:\.\.?\/)+lib\/events\.js' \{(\s*)interface PolicyEventTypes \{/g;
const DECLARED = /^interface PolicyEventTypes \{/m;

let rewritten = 0;
for (const [dts, js] of [
  ['.d.ts', '.js'],
  ['.d.cts', '.cjs'],
]) {
  const own = files.filter((f) => f.endsWith(dts));
  const homes = own.filter((f) => DECLARED.test(readFileSync(new URL(f, dist), 'utf8')));
  if (homes.length !== 1) throw new Error(`expected PolicyEventTypes declared in one ${dts} file, found: ${homes.join(', ') || 'none'}`);
  const home = homes[0];
  const homeText = readFileSync(new URL(home, dist), 'utf8');
  const alias = /\btype PolicyEventTypes as (\w+)\b/.exec(homeText)?.[1] ?? (/\bexport \{[^}]*\bPolicyEventTypes\b/.test(homeText) ? 'PolicyEventTypes' : undefined);
  if (alias === undefined) throw new Error(`${home} does not export PolicyEventTypes`);
  const specifier = `./${home.slice(0, -dts.length)}${js}`;
  for (const file of own) {
    const url = new URL(file, dist);
    const text = readFileSync(url, 'utf8');
    let count = 0;
    const next = text.replace(AUGMENTATION, (_, space) => {
      count++;
      return `declare module '${specifier}' {${space}interface ${alias} {`;
    });
    if (count === 0) continue;
    if (file === home) throw new Error(`${file} both declares and augments PolicyEventTypes`);
    writeFileSync(url, next);
    rewritten += count;
  }
}
// Any other relative `declare module` would be as dead as these were.
for (const file of files.filter((f) => f.endsWith('.d.ts') || f.endsWith('.d.cts'))) {
  for (const [, specifier] of readFileSync(new URL(file, dist), 'utf8').matchAll(/declare module '(\.[^']*)'/g)) {
    const target = specifier.replace(/^\.\//, '').replace(/\.c?js$/, specifier.endsWith('.cjs') ? '.d.cts' : '.d.ts');
    if (!files.includes(target)) throw new Error(`${file}: declare module '${specifier}' names no file in dist/`);
  }
}
console.log(`dist: ${rewritten} event-map augmentations pointed at the map's chunk`);
