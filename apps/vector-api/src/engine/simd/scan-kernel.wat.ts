/**
 * WebAssembly text of the scan kernel (assembled at load time by wat-assembler.ts).
 *
 * Memory layout (one imported memory, managed by scan-kernel.ts): rows are `stride` floats
 * apart, stride = dimension rounded up to a multiple of 4 with zero padding, so every row
 * is whole f32x4 lanes and needs no scalar tail. The query is padded the same way.
 *
 * The dot product keeps four f32x4 accumulators over 16-float chunks (four independent
 * add chains hide the add latency), then one 4-float chunk at a time, then adds the lanes.
 * It is written once below and spliced into `scan` (consecutive rows) and `scanRows`
 * (rows named by an i32 index list), so the hot loops contain no call.
 *
 * `scanRows` first takes the listed rows four at a time (DOT4: one accumulator per row, the
 * query chunk loaded once for four rows). Gathered rows are scattered, so each starts with
 * a cache miss; four independent rows keep four misses in flight. Measured on this machine
 * kind with cold rows (1 % of the table, different rows each query): 784-d 9 GB/s vs 5.5
 * one row at a time, 100-d 5 vs 4. A contiguous `scan` is the other way round (the
 * prefetcher streams one row after the other; four interleaved streams measured 11–16 GB/s
 * against 26–32), so `scan` keeps the one-row loop.
 */

/** Body of one row's dot product: reads $p (row) and $qq (query), leaves an f32 on the stack. */
const DOT = `
    ;; zero the accumulators ($zero is never written)
    local.get $zero
    local.tee $a0
    local.tee $a1
    local.tee $a2
    local.set $a3
    local.get $q
    local.set $qq
    local.get $p
    local.get $bytes16
    i32.add
    local.set $end16
    local.get $p
    local.get $rowBytes
    i32.add
    local.set $end
    block $done16
      loop $chunk16
        local.get $p
        local.get $end16
        i32.ge_u
        br_if $done16
        local.get $a0
        local.get $p
        v128.load align=4
        local.get $qq
        v128.load align=4
        f32x4.mul
        f32x4.add
        local.set $a0
        local.get $a1
        local.get $p
        v128.load offset=16 align=4
        local.get $qq
        v128.load offset=16 align=4
        f32x4.mul
        f32x4.add
        local.set $a1
        local.get $a2
        local.get $p
        v128.load offset=32 align=4
        local.get $qq
        v128.load offset=32 align=4
        f32x4.mul
        f32x4.add
        local.set $a2
        local.get $a3
        local.get $p
        v128.load offset=48 align=4
        local.get $qq
        v128.load offset=48 align=4
        f32x4.mul
        f32x4.add
        local.set $a3
        local.get $p
        i32.const 64
        i32.add
        local.set $p
        local.get $qq
        i32.const 64
        i32.add
        local.set $qq
        br $chunk16
      end
    end
    block $done4
      loop $chunk4
        local.get $p
        local.get $end
        i32.ge_u
        br_if $done4
        local.get $a0
        local.get $p
        v128.load align=4
        local.get $qq
        v128.load align=4
        f32x4.mul
        f32x4.add
        local.set $a0
        local.get $p
        i32.const 16
        i32.add
        local.set $p
        local.get $qq
        i32.const 16
        i32.add
        local.set $qq
        br $chunk4
      end
    end
    ;; horizontal sum of the four accumulators
    local.get $a0
    local.get $a1
    f32x4.add
    local.get $a2
    local.get $a3
    f32x4.add
    f32x4.add
    local.tee $a0
    f32x4.extract_lane 0
    local.get $a0
    f32x4.extract_lane 1
    f32.add
    local.get $a0
    f32x4.extract_lane 2
    f32.add
    local.get $a0
    f32x4.extract_lane 3
    f32.add
`;

const DOT_LOCALS = `
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $zero v128)
    (local $p i32) (local $qq i32) (local $end16 i32) (local $end i32) (local $rowBytes i32) (local $bytes16 i32)`;

/** Horizontal sum of the f32x4 in local `acc`: leaves an f32 on the stack. */
const hsum = (acc: string): string => `
    local.get ${acc}
    f32x4.extract_lane 0
    local.get ${acc}
    f32x4.extract_lane 1
    f32.add
    local.get ${acc}
    f32x4.extract_lane 2
    f32.add
    local.get ${acc}
    f32x4.extract_lane 3
    f32.add`;

/** acc += row[j] · qv for the row at byte address `row` (j = $j, qv = $qv). */
const mac = (acc: string, row: string): string => `
        local.get ${acc}
        local.get ${row}
        local.get $j
        i32.add
        v128.load align=4
        local.get $qv
        f32x4.mul
        f32x4.add
        local.set ${acc}`;

/**
 * Four rows at once ($r0..$r3): each query chunk is loaded once for four rows, and the four
 * independent rows keep four loads in flight, which matters when rows are gathered from
 * scattered addresses (filters, ivf lists) and each one starts with a cache miss.
 * Stores the four dot products at $out.
 */
const DOT4 = `
    local.get $zero
    local.tee $a0
    local.tee $a1
    local.tee $a2
    local.set $a3
    i32.const 0
    local.set $j
    block $done4rows
      loop $chunk4rows
        local.get $j
        local.get $rowBytes
        i32.ge_u
        br_if $done4rows
        local.get $q
        local.get $j
        i32.add
        v128.load align=4
        local.set $qv
        ${mac('$a0', '$r0')}
        ${mac('$a1', '$r1')}
        ${mac('$a2', '$r2')}
        ${mac('$a3', '$r3')}
        local.get $j
        i32.const 16
        i32.add
        local.set $j
        br $chunk4rows
      end
    end
    local.get $out
    ${hsum('$a0')}
    f32.store
    local.get $out
    ${hsum('$a1')}
    f32.store offset=4
    local.get $out
    ${hsum('$a2')}
    f32.store offset=8
    local.get $out
    ${hsum('$a3')}
    f32.store offset=12
`;

const DOT4_LOCALS = `(local $r0 i32) (local $r1 i32) (local $r2 i32) (local $r3 i32) (local $j i32) (local $qv v128) (local $outEnd4 i32)`;

/** rowBytes = stride·4; bytes16 = (stride rounded down to 16)·4. */
const STRIDE_SETUP = `
    local.get $stride
    i32.const 2
    i32.shl
    local.set $rowBytes
    local.get $stride
    i32.const -16
    i32.and
    i32.const 2
    i32.shl
    local.set $bytes16
`;

export const SCAN_KERNEL_WAT = `
(module
  (import "env" "memory" (memory 1))

  ;; out[i] = q · row(first + i) for i in [0, count): rows are consecutive from $rows.
  (func $scan (export "scan")
    (param $q i32) (param $rows i32) (param $stride i32) (param $count i32) (param $out i32)
    ${DOT_LOCALS}
    (local $outEnd i32)
    ${STRIDE_SETUP}
    local.get $rows
    local.set $p
    local.get $out
    local.get $count
    i32.const 2
    i32.shl
    i32.add
    local.set $outEnd
    block $exit
      loop $row
        local.get $out
        local.get $outEnd
        i32.ge_u
        br_if $exit
        local.get $out
        ${DOT}
        f32.store
        ;; the dot product left $p at the end of the row: the next row starts there
        local.get $out
        i32.const 4
        i32.add
        local.set $out
        br $row
      end
    end
  )

  ;; out[i] = q · row(idx[i]) for i in [0, count): rows gathered through an i32 index list.
  (func $scanRows (export "scanRows")
    (param $q i32) (param $rows i32) (param $stride i32) (param $idx i32) (param $count i32) (param $out i32)
    ${DOT_LOCALS}
    (local $outEnd i32)
    ${DOT4_LOCALS}
    ${STRIDE_SETUP}
    local.get $out
    local.get $count
    i32.const 2
    i32.shl
    i32.add
    local.set $outEnd
    ;; groups of four listed rows while at least four remain
    local.get $out
    local.get $count
    i32.const -4
    i32.and
    i32.const 2
    i32.shl
    i32.add
    local.set $outEnd4
    block $exit4
      loop $group
        local.get $out
        local.get $outEnd4
        i32.ge_u
        br_if $exit4
        local.get $rows
        local.get $idx
        i32.load
        local.get $rowBytes
        i32.mul
        i32.add
        local.set $r0
        local.get $rows
        local.get $idx
        i32.load offset=4
        local.get $rowBytes
        i32.mul
        i32.add
        local.set $r1
        local.get $rows
        local.get $idx
        i32.load offset=8
        local.get $rowBytes
        i32.mul
        i32.add
        local.set $r2
        local.get $rows
        local.get $idx
        i32.load offset=12
        local.get $rowBytes
        i32.mul
        i32.add
        local.set $r3
        ${DOT4}
        local.get $idx
        i32.const 16
        i32.add
        local.set $idx
        local.get $out
        i32.const 16
        i32.add
        local.set $out
        br $group
      end
    end
    ;; the remaining rows one at a time
    block $exit
      loop $row
        local.get $out
        local.get $outEnd
        i32.ge_u
        br_if $exit
        local.get $rows
        local.get $idx
        i32.load
        local.get $rowBytes
        i32.mul
        i32.add
        local.set $p
        local.get $out
        ${DOT}
        f32.store
        local.get $idx
        i32.const 4
        i32.add
        local.set $idx
        local.get $out
        i32.const 4
        i32.add
        local.set $out
        br $row
      end
    end
  )

  ;; Sum of $bytes bytes of floats from $p (a multiple of 64): a pure streaming read with the
  ;; same loads as the scan, used by the benchmark to measure the memory-bandwidth limit.
  (func $sum (export "sum") (param $p i32) (param $bytes i32) (result f32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $end i32)
    local.get $p
    local.get $bytes
    i32.add
    local.set $end
    block $exit
      loop $chunk
        local.get $p
        local.get $end
        i32.ge_u
        br_if $exit
        local.get $a0
        local.get $p
        v128.load align=4
        f32x4.add
        local.set $a0
        local.get $a1
        local.get $p
        v128.load offset=16 align=4
        f32x4.add
        local.set $a1
        local.get $a2
        local.get $p
        v128.load offset=32 align=4
        f32x4.add
        local.set $a2
        local.get $a3
        local.get $p
        v128.load offset=48 align=4
        f32x4.add
        local.set $a3
        local.get $p
        i32.const 64
        i32.add
        local.set $p
        br $chunk
      end
    end
    local.get $a0
    local.get $a1
    f32x4.add
    local.get $a2
    local.get $a3
    f32x4.add
    f32x4.add
    local.tee $a0
    f32x4.extract_lane 0
    local.get $a0
    f32x4.extract_lane 1
    f32.add
    local.get $a0
    f32x4.extract_lane 2
    f32.add
    local.get $a0
    f32x4.extract_lane 3
    f32.add
  )
)
`;
