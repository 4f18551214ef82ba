// Ships each doc comment and each module once. The declaration files carry
// the API docs editors show; the JavaScript builds repeat every `/** ... */`
// block esbuild kept (on class members, mostly): this removes those from
// dist/**/*.js and *.cjs, and checks for each file that esbuild minifies the
// result to the very bytes it minifies the original to, so only comments went.
// Then it removes the modules of the per-module build (dist/module/) that are
// empty (a source file of types only) and that no module imports. Run after
// tsup (npm run build does).
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));

/** Every file under `dir`, recursively. */
function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

/** A doc comment on lines of its own (never an annotation such as `@__PURE__`). */
const DOC = /^[ \t]*\/\*\*(?:(?!\*\/)[\s\S])*\*\/[ \t]*\n/gm;
const minified = (code, file) => transformSync(code, { minify: true, format: file.endsWith('.cjs') ? 'cjs' : 'esm', legalComments: 'none' }).code;

let saved = 0;
const scripts = files(dist).filter((f) => f.endsWith('.js') || f.endsWith('.cjs'));
for (const file of scripts) {
  const code = readFileSync(file, 'utf8');
  const stripped = code.replace(DOC, (block) => (block.includes('@__') ? block : ''));
  if (stripped === code) continue;
  if (minified(stripped, file) !== minified(code, file)) throw new Error(`${relative(dist, file)}: removing doc comments changed the code`);
  writeFileSync(file, stripped);
  saved += code.length - stripped.length;
}

const modules = scripts.filter((f) => f.startsWith(join(dist, 'module') + '/'));
const imported = new Set();
for (const file of modules) {
  for (const [, spec] of readFileSync(file, 'utf8').matchAll(/(?:^|[\s;])(?:import|export)\s*(?:[^'";]*?\sfrom\s*)?["'](\.[^"']+)["']/g)) imported.add(resolve(dirname(file), spec));
}
let empty = 0;
for (const file of modules) {
  if (readFileSync(file, 'utf8').trim() !== '' || imported.has(file)) continue;
  rmSync(file);
  empty++;
}
console.log(`dist: ${(saved / 1000).toFixed(0)} KB of doc comments left to the declarations; ${empty} empty modules (types only) removed from dist/module`);
