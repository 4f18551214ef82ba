// Writes dist/schema.json, the JSON Schema of a pipeline config, from the zod
// schema itself (zod's own conversion, never written by hand).
import { writeFileSync } from 'node:fs';
import { z } from 'zod';
import { PipelineConfigSchema } from '../dist/config.js';

// Subschemas used more than once (a breaker's options, a backoff) are written once under $defs and referenced.
const schema = z.toJSONSchema(PipelineConfigSchema, { io: 'input', unrepresentable: 'throw', reused: 'ref' });
schema.title = 'breakwater pipeline config';
// JSON Schema cannot relate one field to another: say where those rules are, for whoever reads the file.
schema.$comment = 'Cross-field rules (cache retainMs >= ttlMs + staleWhileRevalidateMs, breaker buckets dividing windowMs, ...) are not in this file: PipelineConfigSchema and fromConfig check them. The list: docs/config.md, "The JSON Schema".';
// Written without indentation: editors read it, people read PipelineConfigSchema and docs/config.md.
writeFileSync(new URL('../dist/schema.json', import.meta.url), `${JSON.stringify(schema)}\n`);
console.log('dist/schema.json written');
