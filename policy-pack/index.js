// The pack's program, as Pulumi's Node.js host runs a policy pack (`run-policy-pack`, this folder
// as its working directory): the rules and the pack itself are pulumi-cws's
// (provider/policy/pack.ts), resolved by the package's name from here, inside the installed
// package or beside it once `pulumi policy publish` installs this folder's dependencies.
module.exports = () => import("pulumi-cws/provider/policy/pack").then((pack) => pack.startPack());
