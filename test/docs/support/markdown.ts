/**
 * The fenced code blocks of a Markdown document, as the doc tests see them.
 *
 * The info string's first word is the language (what GitHub highlights); the words after it
 * tell the doc tests what to do with the block (docs/architecture.md, "Docs that run"):
 * - `bash`, `sh`, `shell`: run, in order, in one shell session per document;
 * - `js`: run with Node (ESM, `.mjs`), or with `file=<name>`: saved under that name in the
 *   document's working directory for a later shell block to run;
 * - `output`: what the closest runnable block before it prints (ids, secrets and times masked);
 * - `norun`: shown, not run (it starts the platform itself, or is a fragment).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The documents whose examples run: README.md, then docs/*.md by name (repository paths). */
export function documentsUnder(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

export interface CodeBlock {
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly flags: ReadonlySet<string>;
  /** `file=<name>` of a `js` block. */
  readonly file?: string;
  readonly code: string;
}

const FENCE = /^( {0,3}|\s*)(`{3,}|~{3,})(.*)$/;

export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '');
    if (!open) continue;
    const [, indent = '', fence = '', info = ''] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] ?? '';
      const close = FENCE.exec(line);
      if (close && close[2]?.[0] === fence[0] && (close[2]?.length ?? 0) >= fence.length && close[3]?.trim() === '') break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    const [lang = '', ...words] = info.trim().split(/\s+/);
    const file = words.find((w) => w.startsWith('file='))?.slice('file='.length);
    blocks.push({
      line: i + 1,
      lang: lang.toLowerCase(),
      flags: new Set(words.filter((w) => !w.startsWith('file='))),
      ...(file ? { file } : {}),
      code: body.join('\n'),
    });
    i = j;
  }
  return blocks;
}

export const SHELL_LANGS: ReadonlySet<string> = new Set(['bash', 'sh', 'shell']);
export const NODE_LANGS: ReadonlySet<string> = new Set(['js', 'javascript', 'mjs']);

export type Step =
  | { readonly kind: 'shell'; readonly block: CodeBlock; readonly expected?: CodeBlock }
  | { readonly kind: 'node'; readonly block: CodeBlock; readonly expected?: CodeBlock }
  | { readonly kind: 'file'; readonly block: CodeBlock; readonly name: string };

/**
 * The runnable steps of a document in order, each with the `output` block that follows it.
 * Throws on an `output` block with nothing runnable before it, or two for one step, and on a
 * shell or Node block neither run nor marked `norun` (so nothing is skipped by accident).
 */
export function stepsOf(markdown: string, where: string): Step[] {
  const steps: Array<{ kind: Step['kind']; block: CodeBlock; expected?: CodeBlock; name?: string }> = [];
  for (const block of codeBlocks(markdown)) {
    const at = `${where}:${block.line}`;
    if (block.flags.has('output')) {
      const last = steps.at(-1);
      if (!last || last.kind === 'file') throw new Error(`${at}: an output block with no runnable block before it`);
      if (last.expected) throw new Error(`${at}: a second output block for the block at line ${last.block.line}`);
      last.expected = block;
      continue;
    }
    if (block.flags.has('norun')) continue;
    if (SHELL_LANGS.has(block.lang)) steps.push({ kind: 'shell', block });
    else if (NODE_LANGS.has(block.lang)) {
      if (block.file) steps.push({ kind: 'file', block, name: block.file });
      else steps.push({ kind: 'node', block });
    }
  }
  return steps.map((s): Step => {
    if (s.kind === 'file') return { kind: 'file', block: s.block, name: s.name ?? '' };
    return s.expected ? { kind: s.kind, block: s.block, expected: s.expected } : { kind: s.kind, block: s.block };
  });
}
