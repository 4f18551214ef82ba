// A pipeline from a YAML file, hot-reloaded when the file changes: the new
// timeout applies to the next call, a broken edit is refused and the last good
// config stays. Run: npm run build && node examples/yaml-hot-reload.mjs
import { mkdtempSync, rmSync, watch, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BehaviorSubject, filter, firstValueFrom } from 'rxjs';
import { parse } from 'yaml';
import { fromConfig } from 'breakwater';

const dir = mkdtempSync(join(tmpdir(), 'breakwater-example-'));
const file = join(dir, 'pipeline.yaml');
const yaml = (ms) => `name: inventory\npolicies:\n  - type: timeout\n    ms: ${ms}\n  - type: circuitBreaker\n    strategy: errorRatio\n    threshold: 0.5\n  - type: fallback\n    handler: unknownStock\n`;
writeFileSync(file, yaml(200));

const configs = new BehaviorSubject(parse(await readFile(file, 'utf8')));
const inventory = fromConfig(configs, { unknownStock: () => ({ stock: null }) });
const watcher = watch(file, () => readFile(file, 'utf8').then((text) => configs.next(parse(text)), () => undefined));
const next = (type) => firstValueFrom(inventory.events$.pipe(filter((e) => e.type === type)));
const slow = () => new Promise((resolve) => setTimeout(() => resolve({ stock: 7 }), 60));

console.log('timeout 200 ms:', JSON.stringify(await inventory.execute(slow)));
let applied = next('configApplied');
writeFileSync(file, yaml(20));
await applied;
console.log('timeout 20 ms: ', JSON.stringify(await inventory.execute(slow)));
const rejected = next('configRejected');
writeFileSync(file, 'policies:\n  - type: timeout\n    ms: -5\n');
console.log('broken edit refused:', (await rejected).issues.map((i) => `${i.path} ${i.message}`).join('; '));
console.log('still 20 ms:    ', JSON.stringify(await inventory.execute(slow)));
watcher.close();
inventory.dispose();
rmSync(dir, { recursive: true, force: true });
