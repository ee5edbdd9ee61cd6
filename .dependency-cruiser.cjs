/**
 * Layering rules for Syntheo, checked by `npm run lint:deps` (part of `npm test`).
 * test/dependency-rules.test.ts proves each rule still reports a violation.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "No import cycles: a cycle makes module evaluation order decide whether a top-level binding exists yet.",
      from: {},
      to: { circular: true },
    },
    {
      name: "sqlite-only-in-db",
      severity: "error",
      comment: "Only src/db imports better-sqlite3 (even for a type); elsewhere data goes through the Store.",
      from: { pathNot: "^src/db/" },
      to: { path: "^node_modules/better-sqlite3/" },
    },
    {
      name: "db-is-below-the-apps",
      severity: "error",
      comment: "src/db imports nothing from src/mcp, src/worker or src/cli.",
      from: { path: "^src/db/" },
      to: { path: "^src/(mcp|worker|cli)/" },
    },
    {
      name: "store-is-the-door",
      severity: "error",
      comment:
        "Outside src/db, data is reached only through the Store: src/db/store.ts (the interface), src/db/engine.ts (opening one) and pure leaf modules (src/db/model, schema/enums, ids, time, queries/{pagination,types,unicode}); never a module that holds SQL, the driver, or an engine's implementation.",
      from: { path: "^src/", pathNot: "^src/db/" },
      to: {
        path: "^src/db/",
        pathNot: "^src/db/(store|engine|ids|time)[.]ts$|^src/db/model/|^src/db/schema/enums[.]ts$|^src/db/queries/(pagination|types|unicode)[.]ts$",
      },
    },
    {
      name: "mcp-not-app",
      severity: "error",
      comment: "Nothing of the web app loads in the syntheo mcp process; and the app reaches data through the Store, not through MCP code.",
      from: { path: "^src/mcp/" },
      to: { path: "^src/app/" },
    },
    {
      name: "app-not-mcp",
      severity: "error",
      comment: "Nothing of the web app loads in the syntheo mcp process; and the app reaches data through the Store, not through MCP code.",
      from: { path: "^src/app/" },
      to: { path: "^src/mcp/" },
    },
    {
      name: "mcp-not-worker",
      severity: "error",
      comment: "src/mcp and src/worker never import each other.",
      from: { path: "^src/mcp/" },
      to: { path: "^src/worker/" },
    },
    {
      name: "worker-not-mcp",
      severity: "error",
      comment: "src/mcp and src/worker never import each other.",
      from: { path: "^src/worker/" },
      to: { path: "^src/mcp/" },
    },
    {
      name: "cli-not-mcp",
      severity: "error",
      comment: "The CLI reaches MCP code only to start the server (syntheo mcp); the shapes both use are in src/db/model/shapes.ts.",
      from: { path: "^src/cli/", pathNot: "^src/cli/commands/mcp[.]ts$" },
      to: { path: "^src/mcp/" },
    },
    {
      name: "shapes-are-a-leaf",
      severity: "error",
      comment: "src/db/model/shapes.ts (the domain's schemas, loaded by the CLI, the MCP server and the Store) imports valibot and the status vocabularies only: no SQL, nothing that loads more.",
      from: { path: "^src/db/model/shapes[.]ts$" },
      to: { pathNot: "^src/db/schema/enums[.]ts$|^node_modules/valibot/" },
    },
    {
      name: "src-not-dev-trees",
      severity: "error",
      comment: "Product code never imports test/, bench/ or tools/.",
      from: { path: "^src/" },
      to: { path: "^(test|bench|tools)/" },
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      comment: "An import that cannot be resolved would hide its edges from every rule above.",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^dist/" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".json"],
    },
  },
};
