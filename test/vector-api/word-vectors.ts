/**
 * A deterministic "embedding" for framework tests (LangChain, LlamaIndex): each known word owns
 * one dimension, so nearest neighbours and their cosine similarities can be worked out by hand.
 * `rainy` is `sunny` negated, so a text can point away from a query (a negative cosine).
 */
export const WORDS = ['apple', 'banana', 'cherry', 'date', 'fig', 'sunny', 'grape'] as const;
export const DIMENSION = WORDS.length + 1; // the last dimension counts every other word

export function embedWords(text: string): number[] {
  const v = new Array<number>(DIMENSION).fill(0);
  for (const word of text
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean)) {
    if (word === 'rainy') v[WORDS.indexOf('sunny')] -= 1;
    else {
      const i = (WORDS as readonly string[]).indexOf(word);
      v[i === -1 ? DIMENSION - 1 : i] += 1;
    }
  }
  return v;
}

/** Cosine similarity as Qdrant reports it for a `Cosine` collection (higher is closer, −1…1). */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}
