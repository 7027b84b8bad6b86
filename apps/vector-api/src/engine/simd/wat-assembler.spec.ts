import { wasmApi } from './wasm-runtime';
import { assembleWat, WatSyntaxError } from './wat-assembler';

describe('WAT assembler (the kernel subset)', () => {
  it('assembles a module that runs: params, locals, labelled loops, memory and f32x4', () => {
    const bytes = assembleWat(`
      (module
        (import "env" "memory" (memory 1))
        ;; sum of i for i in [0, n)
        (func (export "tri") (param $n i32) (result i32) (local $i i32) (local $s i32)
          block $done
            loop $next
              local.get $i
              local.get $n
              i32.ge_u
              br_if $done
              local.get $s
              local.get $i
              i32.add
              local.set $s
              local.get $i
              i32.const 1
              i32.add
              local.set $i
              br $next
            end
          end
          local.get $s)
        (; lane-wise product of two f32x4 at 0 and 16, lane 2 ;)
        (func (export "lane2") (result f32)
          i32.const 0
          v128.load align=16
          i32.const 0
          v128.load offset=16
          f32x4.mul
          f32x4.extract_lane 2))
    `);
    if (!wasmApi) throw new Error('no WebAssembly');
    expect(wasmApi.validate(bytes)).toBe(true);
    const memory = new wasmApi.Memory({ initial: 1 });
    new Float32Array(memory.buffer).set([1, 2, 3, 4, 5, 6, 7, 8]);
    const exports = new wasmApi.Instance(new wasmApi.Module(bytes), { env: { memory } }).exports as {
      tri(n: number): number;
      lane2(): number;
    };
    expect(exports.tri(10)).toBe(45);
    expect(exports.tri(100000)).toBe(4999950000 | 0);
    expect(exports.lane2()).toBe(21);
  });

  it.each([
    ['(module (func i64.popcnt))', /unsupported instruction i64.popcnt/],
    ['(module (func br $nowhere))', /unknown label \$nowhere/],
    ['(module (func block))', /without "end"/],
    ['(module (func (local.get 0)))', /folded/],
    ['(module (func (param $a i32) local.get $b))', /unknown local \$b/],
    ['(module (func)', /missing|end of WAT/],
    ['(module (func v128.load align=32))', /bad alignment/],
  ])('rejects %s', (source, message) => {
    expect(() => assembleWat(source)).toThrow(WatSyntaxError);
    expect(() => assembleWat(source)).toThrow(message);
  });
});
