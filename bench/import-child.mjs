// Imports one module in this fresh process and prints the CPU time (user +
// system, ms) spent in the import as one JSON line. Started by
// bench/lib/weight.mjs:  node bench/import-child.mjs <specifier>
const specifier = process.argv[2];
const before = process.cpuUsage();
await import(specifier);
const used = process.cpuUsage(before);
console.log(JSON.stringify({ specifier, cpuMs: (used.user + used.system) / 1000 }));
