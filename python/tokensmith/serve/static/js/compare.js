// Side by side: where the tokenizers cut the text differently, and how far their counts spread.
//
// A cut is a byte offset where a token starts or ends. A token is marked when one of its two
// cuts is missing from another tokenizer's cuts: there the tokenizers disagree.

// For each result, a Uint8Array: 1 where the token's start or end is not a cut of every result.
export function disagreements(results, nBytes) {
  if (results.length < 2) return results.map((r) => new Uint8Array(r.ids.length));
  const cuts = new Uint8Array(nBytes + 1);
  results.forEach((r, k) => {
    const bit = 1 << k;
    for (let i = 0; i < r.ids.length; i++) {
      cuts[r.byteStarts[i]] |= bit;
      cuts[r.byteEnds[i]] |= bit;
    }
  });
  const all = (1 << results.length) - 1;
  return results.map((r) => {
    const marks = new Uint8Array(r.ids.length);
    for (let i = 0; i < r.ids.length; i++) {
      marks[i] = (cuts[r.byteStarts[i]] !== all || cuts[r.byteEnds[i]] !== all) ? 1 : 0;
    }
    return marks;
  });
}

// "41–57 tokens: a spread of 16 (39% more for cl100k_base than o200k_base)".
export function spreadText(results) {
  if (results.length < 2) return "";
  const counts = results.map((r) => r.n_tokens);
  const least = Math.min(...counts);
  const most = Math.max(...counts);
  const fewest = results[counts.indexOf(least)].label;
  const largest = results[counts.indexOf(most)].label;
  const share = least ? Math.round(100 * (most - least) / least) : 0;
  return `${least}–${most} tokens: a spread of ${most - least}` +
    (most > least ? ` (${share}% more for ${largest} than ${fewest})` : " (all the same)");
}
