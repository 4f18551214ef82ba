// A pipeline from a YAML file, hot-reloaded when the file changes: the new
// timeout applies to the next call; an edit with a YAML syntax error, and one
// with a bad value, are refused and the last good config keeps serving.
// Run: npm run build && node examples/yaml-hot-reload.mjs
import { mkdtempSync, rmSync, watch, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BehaviorSubject, filter, firstValueFrom } from 'rxjs';
import { parse } from 'yaml';
import { fromConfig } from 'breakwater/config';

const dir = mkdtempSync(join(tmpdir(), 'breakwater-example-'));
const file = join(dir, 'pipeline.yaml');
const yaml = (ms) => `name: inventory\npolicies:\n  - type: timeout\n    ms: ${ms}\n  - type: circuitBreaker\n    strategy: errorRatio\n    threshold: 0.5\n  - type: fallback\n    handler: unknownStock\n`;
writeFileSync(file, yaml(200));

// The stream carries the file's text and fromConfig parses it: a syntax error
// is a refused reload, not an exception that would end the stream (or the process).
const texts = new BehaviorSubject(await readFile(file, 'utf8'));
const inventory = fromConfig(texts, { unknownStock: () => ({ stock: null }) }, { parse });
const watcher = watch(file, () => readFile(file, 'utf8').then((text) => texts.next(text), () => undefined));
const next = (type) => firstValueFrom(inventory.events$.pipe(filter((e) => e.type === type)));
const slow = () => new Promise((resolve) => setTimeout(() => resolve({ stock: 7 }), 60));
const refused = (e) => `${e.reason}: ${e.issues.map((i) => `${i.path ? `${i.path} ` : ''}${i.message.split('\n')[0]}`).join('; ')}`;

console.log('timeout 200 ms:', JSON.stringify(await inventory.execute(slow)));
const applied = next('configApplied');
writeFileSync(file, yaml(20));
await applied;
console.log('timeout 20 ms: ', JSON.stringify(await inventory.execute(slow)));

let rejected = next('configRejected');
writeFileSync(file, 'name: inventory\npolicies:\n  - type: timeout\n    ms: [20\n');
const syntax = await rejected;
if (syntax.reason !== 'invalid' || !syntax.issues[0].message.startsWith('the document could not be parsed')) throw new Error('the syntax error was not refused');
console.log('syntax error refused:', refused(syntax));
const stillFast = await inventory.execute(slow);
if (stillFast.stock !== null) throw new Error('the last good config (20 ms) is not serving');
console.log('still 20 ms:    ', JSON.stringify(stillFast));

rejected = next('configRejected');
writeFileSync(file, 'policies:\n  - type: timeout\n    ms: -5\n');
console.log('bad value refused:', refused(await rejected));
console.log('still 20 ms:    ', JSON.stringify(await inventory.execute(slow)));
watcher.close();
inventory.dispose();
rmSync(dir, { recursive: true, force: true });
