#!/usr/bin/env node
// The `pkgcat` command. Node 24 runs the TypeScript sources directly (type stripping), so the
// version is checked before any of them is loaded: an older Node would fail with a syntax error.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `pkgcat: needs Node.js 24 or later, this is ${process.version}. ` +
      '`npm install` brings Node 24 into node_modules: run pkgcat as `npx pkgcat ...` or through npm scripts.\n',
  );
  process.exit(1);
}
// Node keeps what it compiled, type stripping included, in its compile cache (NODE_COMPILE_CACHE, else
// <tmpdir>/node-compile-cache): the `pkgcat build` process that `serve --repo` starts loads its
// sources from there. Its threads and children inherit the directory through the variable.
const { enableCompileCache } = await import('node:module');
const cache = enableCompileCache();
if (cache.directory) process.env.NODE_COMPILE_CACHE ??= cache.directory;
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2), process.env);
