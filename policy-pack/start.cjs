// `cws-policy-pack <engine address>`: @pulumi/pulumi's run-policy-pack on this folder, from this
// folder (the pack reads its version from package.json here), resolved from here.
process.chdir(__dirname);
const run = require.resolve("@pulumi/pulumi/cmd/run-policy-pack", { paths: [__dirname] });
process.argv = [process.argv[0], run, process.argv[2] ?? "", __dirname];
require(run);
