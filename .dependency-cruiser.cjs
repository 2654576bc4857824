/** Layering rules from docs/architecture.md: engines are pure; surfaces never reach past the service. */
const ENGINES = '^src/(calc|synth|sheet)/';
module.exports = {
  forbidden: [
    {
      name: 'engine-stays-pure',
      comment: 'Engines know nothing of MCP, HTTP, storage, the file system or the layers above them.',
      severity: 'error',
      from: { path: ENGINES },
      to: {
        path: [
          '^src/(service|store|mcp|http|cli|synth-io|observability)/',
          '@modelcontextprotocol',
          '@opentelemetry',
          'pino',
          'prom-client',
          'fastify',
          'better-sqlite3',
          '^pg$',
          'node_modules/pg/',
          'node_modules/ws/',
        ],
      },
    },
    {
      name: 'engine-no-io-builtins',
      severity: 'error',
      from: { path: ENGINES },
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|fs/promises|http|https|net|child_process)$' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
