// Writes dist/schema.json, the JSON Schema of a pipeline config, from the zod
// schema itself (zod's own conversion, never written by hand).
import { writeFileSync } from 'node:fs';
import { z } from 'zod';
import { PipelineConfigSchema } from '../dist/index.js';

const schema = z.toJSONSchema(PipelineConfigSchema, { io: 'input', unrepresentable: 'throw' });
schema.title = 'breakwater pipeline config';
writeFileSync(new URL('../dist/schema.json', import.meta.url), `${JSON.stringify(schema, null, 2)}\n`);
console.log('dist/schema.json written');
