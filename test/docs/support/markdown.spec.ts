import { codeBlocks, stepsOf } from './markdown';

const doc = [
  '# Guide',
  '```bash',
  'echo hi',
  '```',
  'Prints:',
  '```text output',
  'hi',
  '```',
  '- in a list:',
  '  ```js file=receiver.js',
  '  console.log(1);',
  '  ```',
  '```bash norun',
  'npm start',
  '```',
  '```js',
  "console.log('x')",
  '```',
  '```json',
  '{"illustration": true}',
  '```',
].join('\n');

describe('codeBlocks', () => {
  it('reads language, flags, file names and indented blocks', () => {
    const blocks = codeBlocks(doc);
    expect(blocks.map((b) => [b.line, b.lang, [...b.flags], b.file ?? null, b.code])).toEqual([
      [2, 'bash', [], null, 'echo hi'],
      [6, 'text', ['output'], null, 'hi'],
      [10, 'js', [], 'receiver.js', 'console.log(1);'],
      [13, 'bash', ['norun'], null, 'npm start'],
      [16, 'js', [], null, "console.log('x')"],
      [19, 'json', [], null, '{"illustration": true}'],
    ]);
  });
});

describe('stepsOf', () => {
  it('pairs each output block with the runnable block before it and skips norun and illustrations', () => {
    const steps = stepsOf(doc, 'guide.md');
    expect(steps.map((s) => [s.kind, s.block.line, 'expected' in s ? (s.expected?.line ?? null) : null])).toEqual([
      ['shell', 2, 6],
      ['file', 10, null],
      ['node', 16, null],
    ]);
  });

  it('refuses an output block without a runnable block before it, or a second one', () => {
    expect(() => stepsOf('```json output\n{}\n```', 'a.md')).toThrow(/a\.md:1: an output block with no runnable block/);
    expect(() => stepsOf('```sh\necho\n```\n```text output\n\n```\n```text output\n\n```', 'b.md')).toThrow(
      /b\.md:7: a second output/,
    );
  });
});
