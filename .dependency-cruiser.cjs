/**
 * The layers of the repository (STYLE.md, "Shape of the repository"): a file imports only its own layer or those
 * below. lib/ < policies/ < config/ < integrations/ < api/; lab, bench, examples and test sit outside the product.
 * Type-only imports count (tsPreCompilationDeps), so a circle of types is a circle.
 * Checked by test/layers.test.ts in `npm test`.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A circle, type-only ones included: give the helper a narrow interface instead of the whole owner.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'lib-is-the-core',
      severity: 'error',
      comment: 'lib/ imports nothing of this repository outside lib/.',
      from: { path: '^lib/' },
      to: { path: '^(policies|config|integrations|api|lab|bench|examples|test)/' },
    },
    {
      name: 'policies-import-lib-and-breaker-only',
      severity: 'error',
      comment: 'A policy imports lib/, its own folder and policies/breaker/ only (breaker-registry/ may build every breaker family).',
      from: { path: '^policies/([^/]+)/', pathNot: '^policies/breaker-registry/' },
      to: { path: '^(policies/|config/|integrations/|api/)', pathNot: ['^policies/$1/', '^policies/breaker/'] },
    },
    {
      name: 'breaker-registry-imports-breakers',
      severity: 'error',
      comment: 'breaker-registry/ may import the breaker families it builds, and nothing above policies/.',
      from: { path: '^policies/breaker-registry/' },
      to: { path: '^(config|integrations|api)/' },
    },
    {
      name: 'config-below-integrations',
      severity: 'error',
      from: { path: '^config/' },
      to: { path: '^(integrations|api)/' },
    },
    {
      name: 'integrations-below-api',
      severity: 'error',
      from: { path: '^integrations/' },
      to: { path: '^api/' },
    },
    {
      name: 'product-never-imports-outside',
      severity: 'error',
      comment: 'The product never imports the lab, the bench, the examples or the tests.',
      from: { path: '^(lib|policies|config|integrations|api)/' },
      to: { path: '^(lab|bench|examples|test|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|docs)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
