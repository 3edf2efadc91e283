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
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2), process.env);
