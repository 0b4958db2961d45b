// assay's wrapper of Stryker's mocha runner plugin (@stryker-mutator/mocha-runner): the plugin
// takes `mocha` from where it is installed, assay's own tool directory, whose mocha is not the
// project's and resolves the config's `require` (ts-node/register, chai plugins) from there
// ("Cannot find package 'ts-node' imported from .../stryker-9.6.1/node_modules/mocha/..."). This
// module points the plugin's one door to mocha (its `LibWrapper`) at the project's own mocha, then
// hands Stryker the plugin's exports. `stryker.py` writes `mocha.json` (the plugin's directory and
// the project's mocha package) beside it.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const config = JSON.parse(readFileSync(new URL("./mocha.json", import.meta.url), "utf8"));
const url = (file) => pathToFileURL(join(config.runner, file)).href;
const { LibWrapper } = await import(url("lib-wrapper.js"));
const fromMocha = createRequire(join(config.mocha, "package.json"));
const helpers = fromMocha("./lib/cli/run-helpers.js");
LibWrapper.Mocha = fromMocha("./lib/mocha.js");
LibWrapper.loadOptions = fromMocha("./lib/cli/options.js").loadOptions;
LibWrapper.handleRequires = helpers.handleRequires;
LibWrapper.loadRootHooks = helpers.loadRootHooks;
LibWrapper.collectFiles = helpers.handleFiles ?? fromMocha("./lib/cli/collect-files.js");
LibWrapper.require = createRequire(join(process.cwd(), "package.json"));

const plugin = await import(url("index.js"));
export const strykerPlugins = plugin.strykerPlugins;
export const strykerValidationSchema = plugin.strykerValidationSchema;
