#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpus of the libFuzzer targets (fuzz/corpus/NAME/).

The seeds are committed; this script documents what each one is and
rewrites them: python3 fuzz/mkcorpus.py.  The input layouts of fuzz_alias
and fuzz_stream are described at the top of fuzz_alias.c and
fuzz_stream.c.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# fuzz_alias header byte: mode | width code << 2 | method << 4 | U8 << 7
WEIGHTS, ALIAS, FAIR = 0, 1, 2
RECYCLE, VIGLIETTA, BATCH, ALIASM, REJECTION = range(5)


def head(mode, code=0, method=RECYCLE, u8=False):
    return bytes([mode | code << 2 | method << 4 | (0x80 if u8 else 0)])


def bits(n, seed=1):
    """n bytes of a fixed pseudo-random stream to roll with."""
    out, x = bytearray(), seed
    for _ in range(n):
        x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
        out.append(x >> 56)
    return bytes(out)


def weights(ws, width=1, **kw):
    body = b''.join(w.to_bytes(width, 'little') for w in ws)
    return head(WEIGHTS, width - 1, **kw) + struct.pack('<H', len(ws) - 1) + body


def alias(mass, cols, code=0, **kw):
    """cols: (threshold, alias); 'bad' threshold or alias = the sentinel."""
    tb = 1 << code
    body = b''
    for thr, al in cols:
        body += (b'\xff' * tb if thr == 'bad' else thr.to_bytes(tb, 'little'))
        body += struct.pack('<H', 0xffff if al == 'bad' else al)
    return (head(ALIAS, code, **kw) + struct.pack('<H', len(cols) - 1) +
            struct.pack('<Q', mass) + body)


def fair(sides, **kw):
    return head(FAIR, **kw) + struct.pack('<Q', sides)


ALIAS_SEEDS = {
    'weights-d6': weights([1] * 6) + bits(64),
    'weights-2-2-6-1-1': weights([2, 2, 6, 1, 1]) + bits(64, 2),
    'weights-2-2-6-1-1-alias-method':
        weights([2, 2, 6, 1, 1], method=ALIASM) + bits(64, 3),
    'weights-one-side-only': weights([0] * 7 + [5] + [0] * 2) + bits(32),
    'weights-all-zero': weights([0, 0, 0, 0]),
    'weights-u32-max': weights([2**32 - 1, 1, 2**32 - 1], width=4) + bits(64),
    'weights-zipf-1000': weights([1000 // (i + 1) for i in range(1000)],
                                 width=2) + bits(256, 4),
    'weights-300-sides-u8-format': weights([1] * 300, u8=True) + bits(16),
    'weights-loaded-viglietta-refused':
        weights([3, 1], method=VIGLIETTA) + bits(16),
    'alias-5-columns': alias(10, [(10, 0), (4, 2), (10, 2), (7, 0), (9, 1)])
        + bits(64, 5),
    'alias-threshold-over-mass': alias(10, [(10, 0), ('bad', 0)]),
    'alias-index-out-of-range': alias(10, [(3, 'bad'), (10, 1)]),
    'alias-zero-mass': alias(0, [(0, 0)]),
    'alias-share-overflows': alias(2**64 - 1, [(0, 0)] * 3, code=3),
    'alias-share-just-fits': alias(2**63, [(2**63, 0), (0, 0)], code=3)
        + bits(64, 6),
    'fair-d6-recycle': fair(6) + bits(64, 7),
    'fair-d1': fair(1) + bits(8),
    'fair-zero-sides': fair(0),
    'fair-max-batch': fair(2**64 - 1, method=BATCH) + bits(256, 8),
    'fair-2p63-plus-1-rejection': fair(2**63 + 1, method=REJECTION)
        + bits(256, 9),
    'fair-1000003-viglietta': fair(1000003, method=VIGLIETTA) + bits(128, 10),
    'fair-d6-bad-method': fair(6, method=7) + bits(16),
    # Found by the fuzzer (a4f5424): weights 7 and 1, 16 cells of mass 8,
    # whose group of 8 faces spans 16^8 = 2^32, narrow_limit itself: the
    # register loop drew it in 64 bits, a single roll in 128, and the faces
    # differed.  The method byte asks for Viglietta, which a loaded die
    # refuses, so it rolls with DICE_METHOD_RECYCLE.  Its bits are the
    # fuzzer's, kept as found.
    'cells-span-2pow32': weights([7, 1], method=VIGLIETTA) +
        bytes.fromhex('6c86a562cb808d10d686a58931be3ec851bf'),
    # Found by CI's fuzz run at 33e7715: written bits that fill the pool
    # and can never roll (a d3 rejects 0b11 for ever) are discarded by
    # dice_die_failed(), which the failed-roll check did not allow for.
    'fair-d3-rejection-pool-of-ones': fair(3, method=REJECTION)
        + b'\xff' * 1024,
    # ...and by a 12-minute fuzz_alias run: under DICE_METHOD_BATCH the
    # rejected tries stay spent, so a full pool's mark moves on, there is
    # room again, and nothing is discarded.
    'fair-d6-batch-ones-commit-rejects': fair(6, method=BATCH)
        + b'\xff' * 1024,
    # Found by fuzz_stream: a loaded die of 2^41 cells draws a column, then
    # a height; a height that ran dry kept the column's top-up in the state
    # while its bits went back to the pool.  These bits run dry there.
    'weights-4096-column-then-height':
        weights([100000 + (i * 7919) % 100000 for i in range(4096)],
                width=4) + bits(64, 11),
}

# fuzz_stream: one opcode byte, then its arguments (see fuzz_stream.c).
(OP_SIDES, OP_WEIGHTS, OP_ALIAS, OP_METHOD, OP_FORMAT, OP_SOURCE, OP_WRITE,
 OP_READ, OP_ROLL, OP_MANY, OP_U8, OP_FAULT, OP_FORK, OP_FORK_READ) = range(14)
SPECIAL_SIDES = [
    1, 2, 3, 6, 7, 10, 255, 256, 257, 1000003,
    2**31 - 1, 2**32 - 1, 2**32, 2**32 + 1, 3 * 2**30, 2**40 + 1,
    2**40 - 1, 2**53 + 1, 2**62 + 1, 3 * 2**62, 2**63 - 1, 2**63,
    2**63 + 1, 10**18 + 9, 2**64 - 2**54, 2**64 - 2, 2**64 - 1,
]
PRESETS = [[1, 1], [2, 2, 6, 1, 1], [1, 2, 3], [1, 0, 1], [0, 1], [7],
           [3, 1], [1] * 6, [5, 0, 0, 7], [2**32 - 1, 1, 2**32 - 1],
           [1, 2**32 - 1], [1, 2, 3, 4, 5, 6]]
TEXT, U8, U16, U32, U64 = range(5)
ZERO = 8


def s_sides(n):
    if n in SPECIAL_SIDES:
        return bytes([OP_SIDES, SPECIAL_SIDES.index(n)])
    if 1 <= n <= 2**16:
        return bytes([OP_SIDES, 0x80]) + struct.pack('<H', n - 1)
    return bytes([OP_SIDES, 0xc0]) + struct.pack('<Q', n)


def s_weights(ws=None, n=None, mode=0, seed=0):
    """A preset (ws) or n generated weights (see set_weights())."""
    if ws is not None:
        return bytes([OP_WEIGHTS, PRESETS.index(ws)])
    if n <= 16:
        return bytes([OP_WEIGHTS, 0x70, n - 1, mode, seed])
    return bytes([OP_WEIGHTS, 0x80]) + struct.pack('<H', n - 1) + \
        bytes([mode, seed])


def s_alias(n, mode, seed=0):
    if mode & 0x80:
        return bytes([OP_ALIAS, (n - 1) & 0xff, mode, (n - 1) >> 8, seed])
    return bytes([OP_ALIAS, n - 1, mode, seed])


def s_method(m):
    return bytes([OP_METHOD, m])


def s_format(f):
    return bytes([OP_FORMAT, f])


def s_source(written, seed=0):
    return bytes([OP_SOURCE, (seed << 1 | 1) if written else seed << 1, 0])


def s_write(data):
    """Input bytes, up to 239 of them (one length byte)."""
    return bytes([OP_WRITE, len(data) - 1, 0]) + data


def s_write_const(n, ones):
    return bytes([OP_WRITE, 0xf0]) + struct.pack('<H', n - 1) + \
        bytes([2 if ones else 3])


def s_read(n):
    if 1 <= n <= 64:
        return bytes([OP_READ, n - 1])
    if n % 64 == 0 and n <= 1024:
        return bytes([OP_READ, 0x80 + n // 64 - 1])
    return bytes([OP_READ, 0xc0]) + struct.pack('<H', n - 1)


def s_many(n):
    return bytes([OP_MANY, n - 1])


def s_fault(n, room):
    """A read of n bytes whose buffer faults after room bytes."""
    return s_read(n).replace(bytes([OP_READ]), bytes([OP_FAULT]), 1) + \
        bytes([room - 1])


def s_fork():
    return bytes([OP_FORK])


def s_fork_read(n, chunk):
    """A read of n bytes with a VM fork before its chunk (from 1)."""
    return s_read(n).replace(bytes([OP_READ]), bytes([OP_FORK_READ]), 1) + \
        bytes([chunk - 1])


def s_u8(n):
    return bytes([OP_U8]) + struct.pack('<H', n - 1)


STREAM_SEEDS = {
    # The hostile test's sequence: 8 rolls of a wide fair die, then one
    # roll of a grouped {1, 1} die and 32 more: endless before 6c2e8c0.
    'wide-u64-then-grouped-1-1-u8':
        s_format(U64) + s_sides(2**40 + 1) + s_read(64) +
        s_weights([1, 1]) + s_format(U8) + s_read(1) + s_read(32),
    'wide-dice-then-loaded-many':
        s_format(U64) + s_sides(2**64 - 1) + s_read(24) +
        s_weights([2, 2, 6, 1, 1]) + s_many(3) + s_sides(3 * 2**62) +
        s_read(8) + s_weights([2**32 - 1, 1, 2**32 - 1]) + s_many(200) +
        s_sides(2**63) + s_read(800) + s_weights([1, 1]) + s_format(U8) +
        s_read(5) + s_read(1000),
    'grouped-loaded-then-wide-fair':
        s_weights([1, 2, 3]) + s_format(U8 | ZERO) + s_read(7) +
        s_format(U64) + s_sides(2**53 + 1) + s_read(8) + s_sides(6) +
        s_format(TEXT) + s_read(3) + s_read(4000),
    'big-table-column-height':
        s_weights(n=300, mode=3) + s_format(U16) + s_read(100) +
        s_sides(10**18 + 9) + s_format(U64) + s_read(16) +
        s_weights(n=2000, mode=3, seed=5) + s_read(2048) +
        s_weights([1, 1]) + s_read(64),
    'alias-tables-and-methods':
        s_alias(5, 0x00, 1) + s_read(10) + s_method(3) + s_read(10) +
        s_alias(3, 0x0b, 2) + s_alias(200, 0x86, 3) + s_method(0) +
        s_format(U64) + s_read(80) + s_alias(4, 0x2c, 4) + s_read(8),
    'every-method-on-fair-dice':
        s_sides(6) + b''.join(s_method(m) + s_read(5) for m in range(8)) +
        s_sides(2**63 + 1) + b''.join(s_method(m) + s_read(40)
                                     for m in range(5)) +
        s_sides(1000003) + s_method(2) + s_many(100) + s_method(1) +
        s_many(50),
    'written-bits-grouped-loaded':
        s_source(True) + s_weights([2, 2, 6, 1, 1]) + s_format(U8) +
        s_write(bits(200, 11)) + s_read(1) + s_read(100) + s_read(4000) +
        s_sides(2**40 + 1) + s_format(U64) + s_write(bits(200, 12)) +
        s_read(64) + s_weights([1, 1]) + s_format(U8) +
        s_write(bits(100, 13)) + s_read(1) + s_read(32),
    'written-ones-fill-the-pool':
        s_source(True) + s_sides(3) + s_method(4) + s_write_const(2000, True)
        + s_read(1) + s_write(bits(16, 14)) + s_read(2) + s_source(False, 3)
        + s_read(10),
    # libFuzzer's input (as found): a text read whose next line does not
    # fit ends with lines produced and none copied; the harness's twin
    # must still follow those rolls.
    'text-read-ends-before-a-line': b'\x35\x04\x00\x0f\x00\x3f\x01\x1f',
    'text-lines-across-dice':
        s_sides(2**64 - 1) + s_read(5) + s_sides(6) + s_read(3) +
        s_weights([5, 0, 0, 7]) + s_read(1) + s_read(1) + s_read(200) +
        s_u8(10) + s_format(U8) + s_u8(2000) + s_format(0xf1),
    # The second hostile audit: a text read that faults after 2 bytes,
    # then a change of die: the lines formatted for the old die must go.
    'faulting-read-then-changes':
        s_sides(20) + s_fault(4096, 2) + s_weights([0, 1]) +
        s_read(4096) + s_fault(4096, 1) + s_sides(1) + s_read(200) +
        s_sides(20) + s_fault(4000, 3) + s_alias(5, 0x10, 1) + s_read(100) +
        s_fault(300, 7) + s_method(4) + s_read(50) + s_format(U16) +
        s_fault(64, 3) + s_source(True) + s_read(8),
    # ...and a VM fork between the chunks of reads, in text and binary.
    'fork-between-reads':
        s_sides(1000) + s_fault(4096, 5) + s_fork() + s_read(4096) +
        s_format(U64) + s_fault(1024, 12) + s_fork() + s_read(64) +
        s_fork() + s_fork() + s_read(8) + s_format(TEXT) +
        s_fork_read(4096, 3) + s_format(U8) + s_fork_read(8000, 2) +
        s_weights([2, 2, 6, 1, 1]) + s_fork_read(3000, 1),
    # Found by a 12-minute fuzz_stream run: written bits run dry between a
    # loaded d3473's column and its height; the column's draw stayed in
    # the recycled state while the pool rolled back, so the stream's read
    # rolled a face from bits spent twice.  The fuzzer's bytes, as found.
    'loaded-height-runs-dry': bytes.fromhex(
        '0501000101040106c700df961433e9e57a010000de3d22838c45898bb821b048'
        '58f16923b841dabf3282ed3a3176de911e18ab92c2b144e8232993750d41585e'
        '568bdbb2d03701c62a80f1e4fb3388c1645ff90dd6d519f9b21b765a037c0204'
        '000107090303070902020b0202c78600030300cc5d0a3455e83237767303081e'
        '0c26866d0931608ca30404078608a434c4590f805f43af9227a9fd4a3a56590d'
        'b84865bbbebf74d08ad515028acac5b030d6a9a9a9a9a9a9a9a9a9a9a9a9a9a9'
        'a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9'
        'a9a9a9a9a9a9a9a9a9a9a9a9a9a9a9a1a1a1a1a1a1a1a1a1a1a1a1a1a9a9a9a9'
        'a9a9a9a9a9a9a9a9a9a9a9a9aba9a9a9a9a9a9a9a9a9a94a18830e8f66e2c8db'
        'fe5198186a0249e1f0af579ec3681c9eafb8cc86d3725a1c6f109096dd371980'
        '58eee0fd5d5ca8d92cbdb082c32138070007c063c307c09f0f000f040406c700'
        '37fe1f2ec04f0053d6c6dec478fb69debbe1d3722421ecdf0306'),
}

# Odd lengths are parsed with the custom die dW (see fuzz_notation.c).
NOTATION_SEEDS = {
    'd6': 'd6',
    'sum-plus-constant': '3d6+2',
    'keep-highest': '4d6kh3',
    'drop-lowest-repeated': '6x4d6dl1',
    'exploding-success': '10d10!>=8',
    'compound-explode': '3d6!!',
    'reroll-always': '5d6r1',
    'reroll-once': '5d6ro<3',
    'success-failure': '6d10>=7f1',
    'percentile': 'd%',
    'fudge': '4dF',
    'custom-faces': 'd{1,2,3:5}',
    'custom-faces-zero-weight': 'd{-5:2,0,10:0}',
    'custom-die-odd-length': '3dW',
    'arithmetic': '(2d6+3)*2-1d4',
    'negation': '-d6 + -(2d4)',
    'largest-die': '1d18446744073709551615',
    'keep-lowest': '2d20kl1',
    # found by fuzz_notation on a fresh machine (6 December 2026): the
    # element values of a kept brace were never freed
    'brace-keep-lowest': '{2,5}kl',
    'error-unbalanced': '(3d6',
    'error-trailing': '2d6 +',
}


def write(name, seeds):
    d = os.path.join(HERE, 'corpus', name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    for k, v in seeds.items():
        with open(os.path.join(d, k), 'wb') as f:
            f.write(v.encode() if isinstance(v, str) else v)


write('alias', ALIAS_SEEDS)
write('notation', NOTATION_SEEDS)
write('stream', STREAM_SEEDS)
