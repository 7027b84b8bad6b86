import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderPartitionsConf } from './render';

const COMMITTED = 'deploy/nginx/vector-partitions.conf';
const GROUPS = ['10.0.1.1:3001,10.0.1.2:3001', '10.0.2.1:3001,10.0.2.2:3001', '10.0.3.1:3001,10.0.3.2:3001'];

describe('the NGINX configuration of a partitioned vector-api', () => {
  it(`${COMMITTED} is what scripts/vector-partitions.ts generates for its three groups`, () => {
    const expected = renderPartitionsConf({
      groups: GROUPS.map((g) => g.split(',')),
      listen: '8080',
      command: `node bench/ts-run.mjs scripts/vector-partitions.ts ${GROUPS.join(' ')}`,
    });
    // On a difference: node bench/ts-run.mjs scripts/vector-partitions.ts <GROUPS> > deploy/nginx/vector-partitions.conf
    expect(readFileSync(join(process.cwd(), COMMITTED), 'utf8')).toBe(expected);
  });

  it('routes each group to its own upstream, the last share being "*"; no table goes to every instance', () => {
    const conf = renderPartitionsConf({ groups: [['a:1'], ['b:1', 'c:1']], listen: '127.0.0.1:8080', command: 'test' });
    expect(conf).toContain(
      'split_clients "$vector_table" $vector_partition {\n        50.00% vector_p1;\n        * vector_p2;\n    }',
    );
    expect(conf).toContain(
      'upstream vector_p2 {\n        server b:1 max_fails=1 fail_timeout=5s;\n        server c:1 max_fails=1 fail_timeout=5s;',
    );
    expect(conf).toMatch(/upstream vector_any \{\n( {8}server [abc]:1 .*\n){3}/);
    expect(conf).toContain('listen 127.0.0.1:8080;');
  });

  it.each([
    ['no group', [], 'between 1 and 64 groups, got 0'],
    ['65 groups', Array.from({ length: 65 }, () => ['a:1']), 'between 1 and 64 groups, got 65'],
    ['an empty group', [['a:1'], []], 'group 2 has no instance'],
    ['an address without a port', [['a']], 'not host:port: "a"'],
    ['an address that would end the directive', [['a:1;']], 'not host:port: "a:1;"'],
  ])('refuses %s', (_case, groups, message) => {
    expect(() => renderPartitionsConf({ groups, listen: '8080', command: 'test' })).toThrow(message);
  });
});
