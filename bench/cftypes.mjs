// Drives @cloudflare/codemode's type generator (generateTypesFromJsonSchema)
// on one MCP tools/list capture, as a user of that package would: node
// cftypes.mjs TOOLS.json OUT.d.ts. The package's entry point needs the
// Workers runtime, so this imports the chunk that holds the generator.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(here, "../tools/npm/node_modules/@cloudflare/codemode/dist");
const chunk = fs.readdirSync(dist).find((f) => /^json-schema-types-.*\.js$/.test(f));
if (!chunk) throw new Error("no json-schema-types chunk in " + dist);
const mod = await import(pathToFileURL(path.join(dist, chunk)));
const gen = Object.values(mod).find((f) => typeof f === "function" && f.name === "generateTypesFromJsonSchema");
if (!gen) throw new Error("generateTypesFromJsonSchema not found in " + chunk);
const data = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const tools = data.tools ?? data;
const desc = {};
for (const t of tools) desc[t.name] = { description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema };
fs.writeFileSync(process.argv[3], gen(desc));
